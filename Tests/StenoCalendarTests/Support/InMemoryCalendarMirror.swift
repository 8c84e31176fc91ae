import Foundation
import StenoCalendar
import StenoCore

/// A ``CalendarMirror`` in memory with the store's semantics: events upserted by (calendar,
/// remote id), a resource's occurrences replaced as a whole (unreported ones tombstoned, but
/// those starting outside the change set's window kept),
/// `.complete` change sets tombstone every resource they do not list, and the sync state saved
/// in the same step as the data. Like the store, every reported resource keeps its ETag,
/// with or without occurrences in the window.
actor InMemoryCalendarMirror: CalendarMirror {
    struct StoredCalendar {
        var info: CalendarInfo
        /// remote id → event (tombstoned ones kept with `deleted`).
        var events: [String: StoredEvent] = [:]
        /// resource → ETag, for every resource reported and not removed.
        var resources: [String: String?] = [:]
    }

    struct StoredEvent {
        var resource: String
        var etag: String?
        var occurrence: EventOccurrence
        var deleted: Bool
    }

    private(set) var calendarsByRemoteID: [String: StoredCalendar] = [:]
    private(set) var accountSyncState: String?
    private(set) var accountCapabilities: String?
    private(set) var savedCredentials: [CalendarCredentials] = []
    private(set) var appliedChangeSets = 0
    /// Every resource a change set updated, in order (to see what a sync fetched).
    private(set) var updatedResources: [String] = []
    private var nextCalendarID: Int64 = 1

    init() {}

    func calendars() async throws -> [CalendarInfo] {
        calendarsByRemoteID.values.map { stored in
            var info = stored.info
            info.eventCount = stored.events.values.filter { !$0.deleted }.count
            return info
        }.sorted { $0.id < $1.id }
    }

    func resourceTags(calendarRemoteID: String) async throws -> [String: String?] {
        calendarsByRemoteID[calendarRemoteID]?.resources ?? [:]
    }

    func resources(calendarRemoteID: String, overlapping window: DateInterval) async throws -> Set<String> {
        Set(calendarsByRemoteID[calendarRemoteID]?.events.values
            .filter { !$0.deleted && $0.occurrence.start < window.end && $0.occurrence.end > window.start }.map(\.resource) ?? [])
    }

    func apply(_ changes: CalendarChangeSet) async throws -> MirrorChangeSummary {
        appliedChangeSets += 1
        var summary = MirrorChangeSummary()
        var calendar = calendarsByRemoteID[changes.calendar.remoteID] ?? {
            defer { nextCalendarID += 1 }
            return StoredCalendar(info: CalendarInfo(id: nextCalendarID, accountID: 1, remoteID: changes.calendar.remoteID, name: ""))
        }()
        calendar.info.name = changes.calendar.name
        calendar.info.color = changes.calendar.color
        calendar.info.timeZone = changes.calendar.timeZone ?? calendar.info.timeZone
        var byResource: [String: Set<String>] = [:]
        for (remoteID, event) in calendar.events { byResource[event.resource, default: []].insert(remoteID) }
        var untouched = Set(byResource.keys)
        func tombstone(_ remoteIDs: Set<String>) {
            for remoteID in remoteIDs where calendar.events[remoteID]?.deleted == false {
                calendar.events[remoteID]?.deleted = true
                summary.deleted += 1
            }
        }
        for update in changes.updatedResources {
            untouched.remove(update.resource)
            updatedResources.append(update.resource)
            calendar.resources[update.resource] = .some(update.etag)
            var leftover = byResource[update.resource] ?? []
            for occurrence in update.occurrences {
                leftover.remove(occurrence.remoteID)
                let previous = calendar.events[occurrence.remoteID]
                let event = StoredEvent(resource: update.resource, etag: update.etag, occurrence: occurrence, deleted: false)
                if let previous, !previous.deleted, previous.occurrence == occurrence, previous.etag == update.etag {
                    summary.unchanged += 1
                } else if previous == nil || previous?.deleted == true {
                    summary.inserted += 1
                } else {
                    summary.updated += 1
                }
                calendar.events[occurrence.remoteID] = event
            }
            if let window = changes.window {
                leftover = leftover.filter { remoteID in
                    calendar.events[remoteID].map { window.start <= $0.occurrence.start && $0.occurrence.start < window.end } ?? false
                }
            }
            tombstone(leftover)
        }
        for resource in changes.removedResources {
            untouched.remove(resource)
            tombstone(byResource[resource] ?? [])
            calendar.resources[resource] = nil
        }
        if changes.scope == .complete {
            for resource in untouched { tombstone(byResource[resource] ?? []) }
            let listed = Set(changes.updatedResources.map(\.resource))
            calendar.resources = calendar.resources.filter { listed.contains($0.key) }
        }
        if let state = changes.syncState { calendar.info.syncState = state }
        calendarsByRemoteID[changes.calendar.remoteID] = calendar
        return summary
    }

    func removeCalendars(except remoteIDs: Set<String>) async throws {
        calendarsByRemoteID = calendarsByRemoteID.filter { remoteIDs.contains($0.key) }
    }

    func saveAccountState(syncState: String?, capabilities: String?) async throws {
        if let syncState { accountSyncState = syncState }
        if let capabilities { accountCapabilities = capabilities }
    }

    func saveCredentials(_ credentials: CalendarCredentials) async throws {
        savedCredentials.append(credentials)
    }

    // MARK: - Inspection for tests

    /// Live (not tombstoned) occurrences of every calendar, by remote id.
    func liveEvents() -> [String: EventOccurrence] {
        var result: [String: EventOccurrence] = [:]
        for calendar in calendarsByRemoteID.values {
            for (remoteID, event) in calendar.events where !event.deleted { result[remoteID] = event.occurrence }
        }
        return result
    }

    /// Live occurrences of one calendar.
    func liveEvents(calendar remoteID: String) -> [EventOccurrence] {
        (calendarsByRemoteID[remoteID]?.events.values.filter { !$0.deleted }.map(\.occurrence) ?? [])
            .sorted { ($0.start, $0.remoteID) < ($1.start, $1.remoteID) }
    }

    /// The stored sync state of a calendar.
    func syncState(calendar remoteID: String) -> String? { calendarsByRemoteID[remoteID]?.info.syncState }

    /// Disables or enables a calendar as `steno calendars disable` does (its state cleared).
    func setEnabled(calendar remoteID: String, _ enabled: Bool) {
        calendarsByRemoteID[remoteID]?.info.isEnabled = enabled
        calendarsByRemoteID[remoteID]?.info.syncState = nil
    }

    /// Replaces a calendar's stored sync state (to simulate an expired token).
    func overwriteSyncState(calendar remoteID: String, with state: String?) {
        calendarsByRemoteID[remoteID]?.info.syncState = state
    }

    /// An account as stored after the syncs so far (state and capabilities filled in).
    func account(_ base: CalendarAccount) -> CalendarAccount {
        var account = base
        if let accountSyncState { account.syncState = accountSyncState }
        if let accountCapabilities { account.capabilities = accountCapabilities }
        return account
    }
}
