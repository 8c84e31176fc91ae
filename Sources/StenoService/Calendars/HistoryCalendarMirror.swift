import Foundation
import StenoCalendar
import StenoCore

/// The mirror as a history fetch writes it: every change set is marked as the history of its
/// span, keeps no resource ETags and no sync state, and calendars are never removed.
///
/// A history fetch expands a resource within a span outside the window only: recording its
/// ETag would tell the next sync comparing ETags that the resource's occurrences in the window
/// are current when they may not be, and removing calendars or saving sync states is a sync's
/// business, not a look into the past.
struct HistoryCalendarMirror: CalendarMirror {
    let inner: any CalendarMirror

    func calendars() async throws -> [CalendarInfo] { try await inner.calendars() }

    func resourceTags(calendarRemoteID: String) async throws -> [String: String?] {
        try await inner.resourceTags(calendarRemoteID: calendarRemoteID)
    }

    func resources(calendarRemoteID: String, overlapping window: DateInterval) async throws -> Set<String> {
        try await inner.resources(calendarRemoteID: calendarRemoteID, overlapping: window)
    }

    func apply(_ changes: CalendarChangeSet) async throws -> MirrorChangeSummary {
        var history = changes
        history.fromHistory = true
        history.keepsResourceTags = false
        history.syncState = nil
        // A complete change set would judge the whole calendar by what one span holds.
        history.scope = .incremental
        return try await inner.apply(history)
    }

    func removeCalendars(except remoteIDs: Set<String>) async throws {}

    func saveAccountState(syncState: String?, capabilities: String?) async throws {
        // Probed capabilities are worth keeping; the account's sync state is the syncs' own.
        guard capabilities != nil else { return }
        try await inner.saveAccountState(syncState: nil, capabilities: capabilities)
    }

    func saveCredentials(_ credentials: CalendarCredentials) async throws { try await inner.saveCredentials(credentials) }
}
