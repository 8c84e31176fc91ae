import Foundation
import Logging
import StenoCore
import Synchronization

/// Calendars from Microsoft Graph (Outlook, Microsoft 365): the default calendar of the
/// signed-in user, or of each listed user of an organisation.
///
/// Account settings: `mode` (`delegated`: a person signed in with the device code flow and
/// the refresh token renews access; `application`: client credentials for the tenant),
/// `client_id`, `tenant`, optional `authority` and `graph_url` (``GraphEndpoints``), for
/// application accounts `users` (comma-separated ids or UPNs; empty: every Steno user's
/// email), and `mailbox` (the signed-in user, for names). Credentials: `refreshToken`
/// (delegated) or `clientSecret` (application), with the last `accessToken`.
///
/// Each mailbox is synced with calendarView delta rounds (``GraphMailboxSync``): requests
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
        let known = Dictionary(try await context.mirror.calendars().map { ($0.remoteID, $0) }, uniquingKeysWith: { first, _ in first })
        var report = CalendarSyncReport()
        report.calendars = mailboxes.count
        let done = DoneCounter()
        let outcomes = try await withThrowingTaskGroup(of: (GraphMailbox, Result<GraphMailboxSync.Outcome, any Error>).self) { group in
            var results: [(GraphMailbox, Result<GraphMailboxSync.Outcome, any Error>)] = []
            var next = 0
            func addNext() {
                let mailbox = mailboxes[next]
                next += 1
                let info = known[mailbox.remoteID]
                let sync = GraphMailboxSync(
                    client: client, mailbox: mailbox, graphURL: setup.endpoints.graphURL,
                    stored: CalDAVStateCoding.decode(GraphCalendarState.self, from: info?.syncState), isKnown: info != nil,
                    context: context, options: options)
                group.addTask {
                    do {
                        let outcome = try await sync.run()
                        context.progress(CalendarSyncProgress(calendarsDone: done.increment(), calendarsTotal: mailboxes.count, calendarName: mailbox.name))
                        return (mailbox, .success(outcome))
                    } catch {
                        return (mailbox, .failure(error))
                    }
                }
            }
            while next < mailboxes.count && next < max(1, options.concurrentMailboxes) { addNext() }
            while let result = try await group.next() {
                results.append(result)
                if next < mailboxes.count { addNext() }
            }
            return results
        }
        var failures: [any Error] = []
        for (mailbox, result) in outcomes.sorted(by: { $0.0.path < $1.0.path }) {
            switch result {
            case .success(let outcome):
                report.changes.add(outcome.changes)
                if outcome.fullSync { report.fullSyncs += 1 }
                report.warnings += outcome.warnings.prefix(20).map { "\(mailbox.name): \($0)" }
            case .failure(let error):
                if let error = error as? CalendarSyncError {
                    switch error {
                    case .needsCredentials, .retryLater: throw error
                    case .badSource, .malformedResponse: break
                    }
                }
                // One unreadable mailbox does not stop the others.
                failures.append(error)
                report.warnings.append("\(mailbox.name) was not synced: \(error)")
                context.logger.warning("mailbox not synced", metadata: ["mailbox": "\(mailbox.path)", "error": "\(error)"])
            }
        }
        if !mailboxes.isEmpty, failures.count == mailboxes.count, let first = failures.first { throw first }
        try await context.mirror.removeCalendars(except: Set(mailboxes.map(\.remoteID)))
        let totals = await client.totals()
        report.requests = totals.requests
        report.bytesReceived = totals.bytes
        return report
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
