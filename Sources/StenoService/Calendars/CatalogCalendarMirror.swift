import Foundation
import Logging
import StenoCalendar
import StenoCatalog
import StenoCore
import Synchronization

/// The ``CalendarMirror`` of one account over the catalog store: what a provider writes
/// during a sync goes to the catalog, one transaction per change set.
public struct CatalogCalendarMirror: CalendarMirror {
    let store: any CatalogStore
    let accountID: Int64
    let secrets: SecretBox?
    let logger: Logger
    /// Every meeting a change touched during this sync, for the linker and revalidation.
    let touched = TouchedMeetings()

    /// The mirror of `accountID`; `secrets` seals refreshed credentials (nil: they are not saved).
    public init(store: any CatalogStore, accountID: Int64, secrets: SecretBox?, logger: Logger = Logger(label: "steno.calendars")) {
        self.store = store
        self.accountID = accountID
        self.secrets = secrets
        self.logger = logger
    }

    public func calendars() async throws -> [CalendarInfo] {
        try await store.calendars(accountID: accountID, ownerID: nil)
    }

    public func resourceTags(calendarRemoteID: String) async throws -> [String: String?] {
        try await store.resourceTags(accountID: accountID, calendarRemoteID: calendarRemoteID)
    }

    public func resources(calendarRemoteID: String, overlapping window: DateInterval) async throws -> Set<String> {
        try await store.resources(accountID: accountID, calendarRemoteID: calendarRemoteID, overlapping: window)
    }

    public func apply(_ changes: CalendarChangeSet) async throws -> MirrorChangeSummary {
        // Every provider's events pass here: none widens the catalog beyond the field bounds.
        let (bounded, cutFields) = changes.bounded()
        if !cutFields.isEmpty {
            let fields = cutFields.sorted { $0.key < $1.key }.map { "\($0.key) of \($0.value)" }.joined(separator: ", ")
            logger.warning(
                "cut over-long event fields to the mirror's bounds (\(fields) events)",
                metadata: [
                    "account": .stringConvertible(accountID), "calendar": .string(EventFieldLimits.cut(changes.calendar.name, maxBytes: 200)),
                ])
        }
        let summary = try await store.applyCalendarChanges(bounded, accountID: accountID, now: Date())
        touched.add(summary.touchedMeetingIDs)
        return summary
    }

    public func removeCalendars(except remoteIDs: Set<String>) async throws {
        try await store.removeCalendars(accountID: accountID, except: remoteIDs)
    }

    public func saveAccountState(syncState: String?, capabilities: String?) async throws {
        try await store.saveAccountState(accountID: accountID, syncState: syncState, capabilities: capabilities)
    }

    public func saveCredentials(_ credentials: CalendarCredentials) async throws {
        guard let secrets else { return }
        try await store.replaceSecret(accountID: accountID, sealed: try secrets.seal(credentials))
    }

    /// The meetings touched so far.
    public var touchedMeetingIDs: Set<Int64> { touched.all }
}

/// A thread-safe set of meeting ids.
final class TouchedMeetings: Sendable {
    private let ids = Mutex<Set<Int64>>([])

    func add(_ more: Set<Int64>) { ids.withLock { $0.formUnion(more) } }
    var all: Set<Int64> { ids.withLock { $0 } }
}
