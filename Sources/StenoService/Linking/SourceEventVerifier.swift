import Foundation
import Logging
import StenoCalendar
import StenoCatalog
import StenoCore

/// Revalidation's view of linked events outside the mirrored window (by default 180 days back
/// and 365 ahead): a link to an event there must still be checked, yet no sync reads it.
///
/// Syncs no longer look there, so the mirror's row of such an event may be stale. Its source
/// is asked directly (Microsoft Graph: `GET /events/{id}`) and the row brought up to date
/// with the answer before the links are judged: refreshed or revived when the event exists,
/// tombstoned when the source says it is gone. Inside the window the mirror answers and
/// nothing is asked; providers that cannot be asked are answered by the mirror too.
public struct SourceEventVerifier: Sendable {
    let store: any CatalogStore
    let lookups: [CalendarProviderKind: any CalendarEventLookup]
    let access: CalendarAccountAccess
    let settings: CalendarSettings
    let logger: Logger

    /// A verifier asking `lookups` (by the kind of account they serve) with the credentials
    /// `secrets` opens.
    public init(
        store: any CatalogStore, lookups: [CalendarProviderKind: any CalendarEventLookup], secrets: SecretBox?, settings: CalendarSettings,
        logger: Logger
    ) {
        self.store = store
        self.lookups = lookups
        self.access = CalendarAccountAccess(store: store, secrets: secrets, memberNetworks: settings.memberNetworks)
        self.settings = settings
        self.logger = logger
    }

    /// The window syncs mirror at `now`.
    public func mirroredWindow(now: Date = Date()) -> DateInterval {
        ICalendar.mirroredWindow(around: now, daysBack: settings.windowPastDays, daysAhead: settings.windowFutureDays)
    }

    /// Asks the sources about those of `eventIDs` that start outside the mirrored window and
    /// belong to accounts whose provider can be asked, and applies the answers to the mirror.
    ///
    /// - Returns: the events nothing could be learned about (an account without working
    ///   credentials, an unreachable server): their links are left as they are this time.
    public func verify(eventIDs: [Int64], now: Date = Date()) async throws -> Set<Int64> {
        let window = mirroredWindow(now: now)
        let sources = try await store.eventSources(eventIDs: eventIDs).values.filter { source in
            lookups[source.provider] != nil && (source.start < window.start || source.start >= window.end)
        }
        var unknown: Set<Int64> = []
        for (accountID, events) in Dictionary(grouping: sources, by: \.accountID) {
            do {
                unknown.formUnion(try await verify(events, accountID: accountID))
            } catch {
                logger.warning(
                    "linked events outside the mirrored window could not be checked; their links stay as they are",
                    metadata: ["account": "\(accountID)", "events": "\(events.count)", "error": "\(error)"])
                unknown.formUnion(events.map(\.eventID))
            }
        }
        return unknown
    }

    /// Looks up one account's events and applies what was learned, one change set per
    /// calendar. Returns the events the source left unanswered.
    private func verify(_ events: [EventSource], accountID: Int64) async throws -> Set<Int64> {
        let account = try await store.account(id: accountID)
        guard let lookup = lookups[account.provider] else { return [] }
        let context = try await access.context(for: account, logger: logger)
        let keys = events.map { CalendarEventKey(calendarRemoteID: $0.calendarRemoteID, resource: $0.resource) }
        let answers = try await access.enforcingPolicy(of: account) { try await lookup.lookUpEvents(keys, context: context) }
        let calendars = Dictionary(
            try await store.calendars(accountID: accountID, ownerID: nil).map { ($0.remoteID, $0) }, uniquingKeysWith: { first, _ in first })
        let mirror = access.mirror(of: accountID)
        var unanswered: Set<CalendarEventKey> = []
        for (remoteID, keys) in Dictionary(grouping: Set(keys), by: \.calendarRemoteID) {
            guard let calendar = calendars[remoteID] else { continue }
            var changes = CalendarChangeSet(calendar: calendar.descriptor, scope: .incremental)
            for key in keys {
                switch answers[key] {
                case .found(let occurrence, let etag):
                    changes.updatedResources.append(ResourceUpdate(resource: key.resource, etag: etag, occurrences: [occurrence]))
                case .gone:
                    changes.removedResources.append(key.resource)
                case nil:
                    unanswered.insert(key)
                }
            }
            _ = try await mirror.apply(changes)
        }
        return Set(events.filter { unanswered.contains(CalendarEventKey(calendarRemoteID: $0.calendarRemoteID, resource: $0.resource)) }.map(\.eventID))
    }
}
