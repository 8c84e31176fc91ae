import Foundation
import Logging
import StenoCore
import Synchronization

/// Calendars from Microsoft Graph (Outlook, Microsoft 365): every calendar of the signed-in
/// user, or of each listed user of an organisation — own calendars and shared ones the user
/// can read (``GraphCalendar``); disabled ones are skipped.
///
/// Account settings: `mode` (`delegated`: a person signed in with the device code flow and
/// the refresh token renews access; `application`: client credentials for the tenant),
/// `client_id`, `tenant`, optional `authority` and `graph_url` (``GraphEndpoints``), for
/// application accounts `users` (comma-separated ids or UPNs; empty: every Steno user's
/// email), and `mailbox` (the signed-in user, for names). Credentials: `refreshToken`
/// (delegated) or `clientSecret` (application), with the last `accessToken`.
///
/// Each calendar is synced with its own calendarView delta rounds (``GraphCalendarSync``): requests
/// with `Prefer: odata.maxpagesize`, `outlook.timezone="UTC"` and `IdType="ImmutableId"`.
public struct GraphProvider: CalendarProvider {
    public var kind: CalendarProviderKind { .graph }
    let transport: HTTPTransport
    let options: Options
    /// Every Steno user's email: the mailboxes of an application account without `users`.
    let mappedMailboxes: @Sendable () async throws -> [String]
    /// Holds every account's requests to four per mailbox (across daemons when shared).
    let gate: GraphRequestGate

    /// Tuning of a Graph sync.
    public struct Options: Sendable {
        /// `odata.maxpagesize` asked for (Graph may send fewer).
        public var pageSize: Int
        /// Events gathered into one change set (one store transaction).
        public var resourcesPerChangeSet: Int
        /// Days past the configured window's end a full round asks for, so the window can
        /// slide that long before the next full round.
        public var windowSlackDays: Int
        /// Requests in flight at once per mailbox (Exchange allows four).
        public var concurrentRequestsPerMailbox: Int
        /// Mailboxes synced at once by an organisation account.
        public var concurrentMailboxes: Int
        /// A bound on one round, against a server that never ends it.
        public var maximumPagesPerRound: Int
        public var retry: RetryPolicy

        public init(
            pageSize: Int = 100, resourcesPerChangeSet: Int = 2500, windowSlackDays: Int = 7, concurrentRequestsPerMailbox: Int = 4,
            concurrentMailboxes: Int = 4, maximumPagesPerRound: Int = 100_000, retry: RetryPolicy = RetryPolicy()
        ) {
            self.pageSize = pageSize
            self.resourcesPerChangeSet = resourcesPerChangeSet
            self.windowSlackDays = windowSlackDays
            self.concurrentRequestsPerMailbox = concurrentRequestsPerMailbox
            self.concurrentMailboxes = concurrentMailboxes
            self.maximumPagesPerRound = maximumPagesPerRound
            self.retry = retry
        }
    }

    /// How throttled requests (429, 503, 504) are retried within a sync; beyond it the sync
    /// ends with ``CalendarSyncError/retryLater(after:reason:)`` and the job waits instead.
    public struct RetryPolicy: Sendable {
        public var maximumRetries: Int
        /// A longer `Retry-After` is not slept through in the sync.
        public var maximumDelay: Duration

        public init(maximumRetries: Int = 4, maximumDelay: Duration = .seconds(30)) {
            self.maximumRetries = maximumRetries
            self.maximumDelay = maximumDelay
        }

        /// The wait when the server names none: 1, 2, 4… seconds.
        func defaultDelay(attempt: Int) -> Duration { .seconds(1 << min(attempt, 5)) }
    }

    /// A provider sending its requests through `transport`; `mappedMailboxes` lists Steno's
    /// users' emails for organisation accounts that name no users; `sharedSlots` holds the
    /// per-mailbox limit across the daemons sharing a catalog (nil: this process alone).
    public init(
        transport: HTTPTransport, options: Options = Options(),
        mappedMailboxes: @escaping @Sendable () async throws -> [String] = { [] }, sharedSlots: (any SharedMailboxSlots)? = nil
    ) {
        self.transport = transport
        self.options = options
        self.mappedMailboxes = mappedMailboxes
        self.gate = GraphRequestGate(limit: options.concurrentRequestsPerMailbox, shared: sharedSlots)
    }

    public func sync(_ context: CalendarSyncContext) async throws -> CalendarSyncReport {
        let setup = try GraphAccountSetup(account: context.account)
        let client = makeClient(setup: setup, context: context)
        let mailboxes = try await mailboxes(setup: setup, context: context)
        let stored = try await context.mirror.calendars()
        let known = Dictionary(stored.map { ($0.remoteID, $0) }, uniquingKeysWith: { first, _ in first })
        let done = DoneCounter()
        let outcomes = try await withThrowingTaskGroup(of: (GraphMailbox, MailboxOutcome).self) { group in
            var results: [(GraphMailbox, MailboxOutcome)] = []
            var next = 0
            func addNext() {
                let mailbox = mailboxes[next]
                next += 1
                group.addTask {
                    let outcome = try await sync(mailbox, client: client, setup: setup, known: known, context: context)
                    context.progress(CalendarSyncProgress(calendarsDone: done.increment(), calendarsTotal: mailboxes.count, calendarName: mailbox.name))
                    return (mailbox, outcome)
                }
            }
            while next < mailboxes.count && next < max(1, options.concurrentMailboxes) { addNext() }
            while let result = try await group.next() {
                results.append(result)
                if next < mailboxes.count { addNext() }
            }
            return results
        }
        var report = CalendarSyncReport()
        var failures: [any Error] = []
        var attempted = 0
        var present = Set<String>()
        for (mailbox, outcome) in outcomes.sorted(by: { $0.0.path < $1.0.path }) {
            present.formUnion(outcome.listed.map(\.remoteID))
            if let warning = outcome.listingWarning {
                // Calendars the listing could not confirm are kept until it can.
                present.formUnion(stored.map(\.remoteID).filter(mailbox.holds(calendar:)))
                report.warnings.append(warning)
            }
            for (calendar, result) in outcome.results {
                attempted += 1
                switch result {
                case .success(let synced):
                    report.changes.add(synced.changes)
                    if synced.fullSync { report.fullSyncs += 1 }
                    report.warnings += synced.warnings.prefix(20).map { "\(calendar.name): \($0)" }
                case .failure(let error):
                    // One unreadable calendar does not stop the others.
                    failures.append(error)
                    report.warnings.append("\(calendar.name) was not synced: \(error)")
                    context.logger.warning("calendar not synced", metadata: ["calendar": "\(calendar.path)", "error": "\(error)"])
                }
            }
        }
        report.calendars = attempted
        if attempted > 0, failures.count == attempted, let first = failures.first { throw first }
        try await context.mirror.removeCalendars(except: present)
        let totals = await client.totals()
        report.requests = totals.requests
        report.bytesReceived = totals.bytes
        return report
    }

    /// What one mailbox's sync did: its calendars as listed, and each enabled one's result.
    struct MailboxOutcome: Sendable {
        var listed: [GraphCalendar] = []
        /// Set when the listing failed and only the default calendar was synced.
        var listingWarning: String?
        var results: [(GraphCalendar, Result<GraphCalendarSync.Outcome, any Error>)] = []
    }

    /// Lists a mailbox's calendars and syncs the enabled ones, one after the other (the
    /// mailbox's request slots are shared by all of them).
    ///
    /// - Throws: only what ends the whole account's sync (credentials refused, throttling).
    private func sync(
        _ mailbox: GraphMailbox, client: GraphClient, setup: GraphAccountSetup, known: [String: CalendarInfo], context: CalendarSyncContext
    ) async throws -> MailboxOutcome {
        var outcome = MailboxOutcome()
        do {
            outcome.listed = try await GraphCalendar.list(
                in: mailbox, client: client, graphURL: setup.endpoints.graphURL, maximumPages: options.maximumPagesPerRound)
        } catch let error as CalendarSyncError {
            switch error {
            case .needsCredentials, .retryLater: throw error
            case .badSource, .malformedResponse:
                // The default calendar is read through the mailbox path: sync it alone.
                outcome.listed = [.defaultCalendar(of: mailbox)]
                outcome.listingWarning = "the calendars of \(mailbox.name) could not be listed, so only its default calendar was synced: \(error)"
                context.logger.warning("calendars not listed", metadata: ["mailbox": "\(mailbox.path)", "error": "\(error)"])
            }
        }
        for calendar in outcome.listed {
            let info = known[calendar.remoteID]
            // A disabled calendar is left alone until it is enabled again.
            if info?.isEnabled == false { continue }
            let sync = GraphCalendarSync(
                client: client, calendar: calendar, graphURL: setup.endpoints.graphURL,
                stored: CalDAVStateCoding.decode(GraphCalendarState.self, from: info?.syncState), isKnown: info != nil,
                context: context, options: options)
            do {
                outcome.results.append((calendar, .success(try await sync.run())))
            } catch let error as CalendarSyncError {
                switch error {
                case .needsCredentials, .retryLater: throw error
                case .badSource, .malformedResponse: outcome.results.append((calendar, .failure(error)))
                }
            } catch {
                outcome.results.append((calendar, .failure(error)))
            }
        }
        return outcome
    }

    func makeClient(setup: GraphAccountSetup, context: CalendarSyncContext) -> GraphClient {
        let mirror = context.mirror
        return makeClient(
            setup: setup, accountID: context.account.id, signedInMailbox: context.account.settings["mailbox"], credentials: context.credentials,
            save: { try await mirror.saveCredentials($0) })
    }

    /// A client for one request outside a sync (a write, a lookup).
    func makeClient(setup: GraphAccountSetup, context: CalendarAccountContext) -> GraphClient {
        makeClient(
            setup: setup, accountID: context.account.id, signedInMailbox: context.account.settings["mailbox"], credentials: context.credentials,
            save: context.saveCredentials)
    }

    private func makeClient(
        setup: GraphAccountSetup, accountID: Int64, signedInMailbox: String?, credentials: CalendarCredentials?,
        save: @escaping @Sendable (CalendarCredentials) async throws -> Void
    ) -> GraphClient {
        let authorizer = GraphAuthorizer(
            credentials: credentials ?? CalendarCredentials(), grant: setup.grant,
            endpoint: OAuthTokenEndpoint(tokenURL: setup.endpoints.tokenURL, clientID: setup.clientID, transport: transport),
            fixCommand: setup.fixCommand(accountID: accountID), save: save)
        return GraphClient(
            transport: transport, authorizer: authorizer, gate: gate, clientID: setup.clientID,
            signedInMailbox: signedInMailbox ?? "account-\(accountID)", retry: options.retry)
    }

    func mailboxes(setup: GraphAccountSetup, context: CalendarSyncContext) async throws -> [GraphMailbox] {
        switch setup.grant {
        case .delegated:
            return [.signedInUser(name: context.account.settings["mailbox"] ?? context.account.displayName)]
        case .clientCredentials:
            let users = setup.users.isEmpty ? try await mappedMailboxes() : setup.users
            guard !users.isEmpty else {
                throw CalendarSyncError.badSource(
                    "the organisation account names no users and no Steno user has an email; add users with emails or pass --users")
            }
            return Set(users.map { $0.lowercased() }).sorted().map(GraphMailbox.user)
        }
    }
}

/// Counts finished mailboxes across tasks, for progress.
final class DoneCounter: Sendable {
    private let count = Mutex(0)
    func increment() -> Int {
        count.withLock {
            $0 += 1
            return $0
        }
    }
}
