import Foundation
import GRDB
import StenoCatalog
import StenoCore

/// The change feeds: events in the order their rows were last written (``ChangeClock``).
extension SQLiteCatalog {
    public func eventChanges(_ query: EventChangesQuery) async throws -> EventChangesPage {
        let limit = max(1, query.limit)
        return try await writer.read { db in
            let scope: String
            var arguments: StatementArguments = [query.since, query.includeDeleted]
            switch query.scope {
            case .account(let accountID):
                scope = "a.id = ?"
                arguments += [accountID]
            case .visibleTo(let ownerID, let deviceAccountID):
                // Requests are addressed to one device: other devices of the owner must not
                // create the same event again.
                scope = """
                    \(CatalogSQL.eventConcerns("?")) AND (a.id = ? OR e.remote_id NOT LIKE '\(DeviceEventKeys.requestPrefix)%')
                    """
                arguments += [ownerID, ownerID, ownerID, deviceAccountID]
            }
            arguments += [limit + 1]
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT e.id, e.calendar_id, e.meeting_id, e.remote_id, e.ical_uid, \(StoredEventKeys.seriesUID) AS series_uid,
                        e.recurrence_id, e.title, e.starts_at, e.ends_at, e.time_zone, e.is_all_day, e.all_day_start, e.all_day_end,
                        e.status, e.organizer_email, e.organizer_name, e.organizer_response, e.location, e.online_meeting_url,
                        e.web_link, e.etag, e.deleted_at, e.updated_at, e.change_seq, m.identity AS meeting_identity,
                        c.remote_id AS calendar_remote_id, c.name AS calendar_name, a.id AS account_id, a.provider, d.id AS device_id
                    FROM events e INDEXED BY events_change_seq
                    JOIN calendars c ON c.id = e.calendar_id JOIN calendar_accounts a ON a.id = c.account_id
                    LEFT JOIN devices d ON d.account_id = a.id LEFT JOIN meetings m ON m.id = e.meeting_id
                    WHERE e.change_seq > ? AND (? OR e.deleted_at IS NULL) AND \(scope)
                    ORDER BY e.change_seq LIMIT ?
                    """,
                arguments: arguments)
            let page = Array(rows.prefix(limit))
            let attendees = try Self.attendees(ofEvents: page.map { $0["id"] as Int64 }, db: db)
            let events = page.map { row in
                EventChange(
                    id: row["id"], provider: CalendarProviderKind(rawValue: row["provider"]) ?? .ics, accountID: row["account_id"],
                    deviceID: row["device_id"], calendarRemoteID: row["calendar_remote_id"], calendarName: row["calendar_name"],
                    meetingID: row["meeting_id"], etag: row["etag"], changeSequence: row["change_seq"],
                    updatedAt: Self.date(milliseconds: row["updated_at"]), deletedAt: (row["deleted_at"] as Int64?).map(Self.date(milliseconds:)),
                    occurrence: Self.mirroredEvent(row, attendees: attendees[row["id"]] ?? []).occurrence)
            }
            let hasMore = rows.count > limit
            // A page that holds the rest says how far the catalog was when it was read: a change
            // committed after that takes a later value, so nothing between is ever skipped.
            let serverTime = hasMore ? (events.last?.changeSequence ?? query.since) : max(query.since, try ChangeClock.current(db))
            return EventChangesPage(events: events, serverTime: serverTime, hasMore: hasMore)
        }
    }

    /// The attendee rows of some events, by event id.
    static func attendees(ofEvents ids: [Int64], db: Database) throws -> [Int64: [Attendee]] {
        guard !ids.isEmpty else { return [:] }
        var attendees: [Int64: [Attendee]] = [:]
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT a.event_id, a.email, a.name, a.role, a.response FROM json_each(?) j
                JOIN event_attendees a ON a.event_id = j.value ORDER BY a.event_id, a.email
                """,
            arguments: [jsonArray(ids)])
        while let row = try rows.next() { attendees[row["event_id"], default: []].append(attendee(row)) }
        return attendees
    }
}
