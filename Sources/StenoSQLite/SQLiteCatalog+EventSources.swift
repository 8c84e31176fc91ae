import Foundation
import GRDB
import StenoCatalog
import StenoCore

/// Where mirrored events live at their sources, for write-back and for lookups of linked
/// events outside the mirrored window.
extension SQLiteCatalog {
    public func eventSources(eventIDs: [Int64]) async throws -> [Int64: EventSource] {
        guard !eventIDs.isEmpty else { return [:] }
        let ids = Self.jsonArray(eventIDs)
        return try await writer.read { db in
            let rows = try Row.fetchAll(
                db, sql: Self.eventSourceSelect + " WHERE e.id IN (SELECT value FROM json_each(?))", arguments: [ids])
            return Dictionary(rows.map { (($0["id"] as Int64), Self.eventSource($0)) }) { first, _ in first }
        }
    }

    public func eventSources(meetingID: Int64) async throws -> [EventSource] {
        try await writer.read { db in
            try Row.fetchAll(
                db, sql: Self.eventSourceSelect + " WHERE e.meeting_id = ? AND e.deleted_at IS NULL ORDER BY e.id", arguments: [meetingID]
            ).map(Self.eventSource)
        }
    }

    public func eventSource(accountID: Int64, calendarRemoteID: String, remoteID: String) async throws -> EventSource? {
        try await writer.read { db in
            try Row.fetchOne(
                db, sql: Self.eventSourceSelect + " WHERE c.account_id = ? AND c.remote_id = ? AND e.remote_id = ?",
                arguments: [accountID, calendarRemoteID, remoteID]
            ).map(Self.eventSource)
        }
    }

    static let eventSourceSelect = """
        SELECT e.id, e.meeting_id, a.id AS account_id, a.owner_id, a.provider, c.remote_id AS calendar_remote_id,
            c.name AS calendar_name, \(StoredEventKeys.resource) AS resource, e.ical_uid, e.title, e.starts_at, e.etag,
            e.deleted_at IS NOT NULL AS deleted,
            EXISTS (SELECT 1 FROM user_emails ue WHERE ue.user_id = a.owner_id AND ue.email = e.organizer_email) AS owner_organizes
        FROM events e JOIN calendars c ON c.id = e.calendar_id JOIN calendar_accounts a ON a.id = c.account_id
        """

    static func eventSource(_ row: Row) -> EventSource {
        EventSource(
            eventID: row["id"], meetingID: row["meeting_id"], accountID: row["account_id"], ownerID: row["owner_id"],
            provider: CalendarProviderKind(rawValue: row["provider"]) ?? .ics, calendarRemoteID: row["calendar_remote_id"],
            calendarName: row["calendar_name"], resource: row["resource"], iCalUID: row["ical_uid"], title: row["title"],
            start: date(milliseconds: row["starts_at"]), etag: row["etag"], ownerOrganizes: row["owner_organizes"], isDeleted: row["deleted"])
    }
}
