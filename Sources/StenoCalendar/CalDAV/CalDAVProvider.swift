import Foundation
import Logging
import StenoCore

/// Calendars from a CalDAV server (iCloud, Google, Nextcloud, Radicale, …).
///
/// Account settings: `url` (a server root, principal, calendar home or well-known URL) and
/// `user`; for OAuth accounts also `token_url` and `client_id`. Credentials: `password`
/// (HTTP Basic; an app-specific password for iCloud) or `accessToken` (Bearer) with an
/// optional `refreshToken` and `clientSecret`, refreshed when it expires or a request gets 401
/// and saved back through the mirror.
///
/// The first sync discovers the calendar home and probes the server's capabilities; both are
/// stored with the account, so later syncs start by listing the home's calendars (one request)
/// and then sync each calendar incrementally (see ``CalDAVCalendarSync``): one sync-collection
/// REPORT per calendar, plus calendar-multiget REPORTs for what changed.
///
/// Syncing only reads; writes go through ``CalDAVEventWriter``, which sends only strong ETags
/// in `If-Match` (a weak `W/"…"` ETag is kept for comparison, never sent as a precondition).
public struct CalDAVProvider: CalendarProvider {
    public var kind: CalendarProviderKind { .caldav }
    let transport: HTTPTransport
    let options: Options

    /// Tuning of a CalDAV sync.
    public struct Options: Sendable {
        /// Hrefs per calendar-multiget REPORT. Few large reports cost a server less than many
        /// small ones (Radicale lists the collection's folder for each: 45 → 15 requests and
        /// about a second less server CPU for 10,000 events with 1,000 instead of 250); a
        /// server that refuses one that large gets it in halves.
        public var multigetChunkSize: Int
        /// calendar-multiget REPORTs in flight at once per calendar.
        public var concurrentRequests: Int
        /// Fetched resources gathered into one change set (one store transaction): bounds
        /// memory on huge calendars while keeping transactions few. Change sets are written
        /// while the next chunks are fetched, so only the last one is not hidden behind the
        /// server's work: about one multiget's worth keeps that tail short.
        public var resourcesPerChangeSet: Int
        /// `<D:limit><D:nresults>` sent with sync-collection; nil sends none (servers page
        /// on their own with 507, which is followed).
        public var syncCollectionLimit: Int?
        /// Objects are fetched and expanded again once the window has slid this many days
        /// (a recurring series then gains its occurrences at the window's far end).
        public var reexpandAfterDays: Int
        /// Floating times and all-day dates of calendars without a `calendar-timezone`.
        public var defaultTimeZone: TimeZone
        /// First syncs and slid windows list objects by the window's time range
        /// (calendar-query) where the server supports it; false lists the whole collection,
        /// as `steno-bench caldav` does for its comparison.
        public var listsByTimeRange: Bool

        public init(
            multigetChunkSize: Int = 1000, concurrentRequests: Int = 2, resourcesPerChangeSet: Int = 1000,
            syncCollectionLimit: Int? = nil, reexpandAfterDays: Int = 7, defaultTimeZone: TimeZone = .current,
            listsByTimeRange: Bool = true
        ) {
            self.listsByTimeRange = listsByTimeRange
            self.multigetChunkSize = multigetChunkSize
            self.concurrentRequests = concurrentRequests
            self.resourcesPerChangeSet = resourcesPerChangeSet
            self.syncCollectionLimit = syncCollectionLimit
            self.reexpandAfterDays = reexpandAfterDays
            self.defaultTimeZone = defaultTimeZone
        }
    }

    /// A provider sending its requests through `transport`.
    public init(transport: HTTPTransport, options: Options = Options()) {
        self.transport = transport
        self.options = options
    }

    public func sync(_ context: CalendarSyncContext) async throws -> CalendarSyncReport {
        let settings = context.account.settings
        guard let urlText = settings["url"], let start = URL(string: urlText), start.host != nil else {
            throw CalendarSyncError.badSource(
                "the CalDAV account has no valid `url` setting (got \(settings["url"].map { "\"\($0)\"" } ?? "none")); "
                    + "set it to the server, e.g. https://caldav.icloud.com/")
        }
        let client = makeClient(context: context)
        var report = CalendarSyncReport()
        do {
            try await syncCalendars(context: context, client: client, start: start, report: &report)
        } catch {
            let totals = await client.totals()
            context.logger.debug("CalDAV sync failed", metadata: ["requests": "\(totals.requests)", "error": "\(error)"])
            throw error
        }
        let totals = await client.totals()
        report.requests = totals.requests
        report.bytesReceived = totals.bytes
        return report
    }

    private func makeClient(context: CalendarSyncContext) -> CalDAVClient {
        let mirror = context.mirror
        return CalDAVClient(
            account: context.account, credentials: context.credentials, transport: transport, save: { try await mirror.saveCredentials($0) })
    }

    private func syncCalendars(context: CalendarSyncContext, client: CalDAVClient, start: URL, report: inout CalendarSyncReport) async throws {
        let discovery = CalDAVDiscovery(client: client)
        let storedAccount = CalDAVStateCoding.decode(CalDAVAccountState.self, from: context.account.syncState)
        var capabilities = CalDAVStateCoding.decode(CalDAVCapabilities.self, from: context.account.capabilities)
        var account = storedAccount
        var collections: [CalDAVCollection]?
        // The CTag is the change check only without sync-collection (see CalDAVRequests.calendarListing).
        let wantsCTag = capabilities.map { !$0.syncCollection } ?? false
        if let stored = storedAccount, let home = URL(string: stored.homeURL) {
            do {
                collections = try await discovery.calendars(home: home, probeReports: capabilities == nil, changeTag: wantsCTag)
            } catch is CalDAVHomeGone {
                context.logger.info("the stored calendar home is gone; discovering again", metadata: ["home": "\(stored.homeURL)"])
            }
        }
        if collections == nil {
            let found = try await discovery.discover(from: start)
            guard let home = URL(string: found.homeURL) else {
                throw CalendarSyncError.malformedResponse("discovery returned an unusable calendar home \(found.homeURL)")
            }
            account = found
            do {
                collections = try await discovery.calendars(home: home, probeReports: capabilities == nil, changeTag: wantsCTag)
            } catch is CalDAVHomeGone {
                throw CalendarSyncError.badSource("the calendar home \(found.homeURL) found by discovery answers 404")
            }
        }
        guard let account, let home = URL(string: account.homeURL) else { return }
        let all = collections ?? []
        let calendars = all.filter(\.holdsEvents)
        var probed = false
        if capabilities == nil {
            capabilities = try await discovery.capabilities(home: home, calendars: all)
            probed = true
        }
        let accountChanged = account != storedAccount
        if accountChanged || probed {
            try await context.mirror.saveAccountState(
                syncState: accountChanged ? CalDAVStateCoding.encode(account) : nil,
                capabilities: probed ? capabilities.map(CalDAVStateCoding.encode) : nil)
        }
        guard var capabilities else { return }

        let known = Dictionary(try await context.mirror.calendars().map { ($0.remoteID, $0) }, uniquingKeysWith: { first, _ in first })
        report.calendars = calendars.count
        var failures: [any Error] = []
        for (index, collection) in calendars.enumerated() {
            context.progress(CalendarSyncProgress(calendarsDone: index, calendarsTotal: calendars.count, calendarName: collection.name))
            let info = known[collection.href.path]
            // A disabled calendar is left alone until it is enabled again.
            if info?.isEnabled == false { continue }
            let calendarSync = CalDAVCalendarSync(
                client: client, collection: collection, capabilities: capabilities,
                stored: CalDAVStateCoding.decode(CalDAVCalendarState.self, from: info?.syncState), isKnown: info != nil,
                context: context, options: options)
            do {
                let outcome = try await calendarSync.run()
                report.changes.add(outcome.changes)
                if outcome.fullSync { report.fullSyncs += 1 }
                report.warnings += outcome.warnings.prefix(20).map { "\(collection.name): \($0)" }
                if outcome.syncCollectionUnsupported, capabilities.syncCollection {
                    capabilities.syncCollection = false
                    try await context.mirror.saveAccountState(syncState: nil, capabilities: CalDAVStateCoding.encode(capabilities))
                }
            } catch let error as CalendarSyncError {
                switch error {
                case .needsCredentials, .retryLater: throw error
                case .badSource, .malformedResponse:
                    // One broken calendar does not stop the others.
                    failures.append(error)
                    report.warnings.append("\(collection.name) was not synced: \(error)")
                    context.logger.warning("calendar not synced", metadata: ["calendar": "\(collection.href.path)", "error": "\(error)"])
                }
            }
        }
        if !calendars.isEmpty, failures.count == calendars.count, let first = failures.first { throw first }
        try await context.mirror.removeCalendars(except: Set(calendars.map(\.href.path)))
        context.progress(CalendarSyncProgress(calendarsDone: calendars.count, calendarsTotal: calendars.count))
    }
}
