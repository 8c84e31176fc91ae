import Foundation
import GRDB
import StenoCatalog
import StenoCore

extension SQLiteCatalog {
    public func calendars(accountID: Int64?, ownerID: Int64?) async throws -> [CalendarInfo] {
        try await writer.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT c.id, c.account_id, c.remote_id, c.name, c.color, c.time_zone, c.sync_state, c.is_enabled,
                        (SELECT count(*) FROM events e WHERE e.calendar_id = c.id AND e.deleted_at IS NULL) AS event_count
                    FROM calendars c JOIN calendar_accounts a ON a.id = c.account_id
                    WHERE (?1 IS NULL OR c.account_id = ?1) AND (?2 IS NULL OR a.owner_id = ?2)
                    ORDER BY c.id
                    """,
                arguments: [accountID, ownerID]
            ).map { row in
                CalendarInfo(
                    id: row["id"], accountID: row["account_id"], remoteID: row["remote_id"], name: row["name"], color: row["color"],
                    timeZone: row["time_zone"], syncState: row["sync_state"], eventCount: row["event_count"],
                    isEnabled: row["is_enabled"])
            }
        }
    }

    public func resourceTags(accountID: Int64, calendarRemoteID: String) async throws -> [String: String?] {
        try await writer.read { db in
            var tags: [String: String?] = [:]
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT r.resource, r.etag FROM calendar_resources r JOIN calendars c ON c.id = r.calendar_id
                    WHERE c.account_id = ? AND c.remote_id = ?
                    """,
                arguments: [accountID, calendarRemoteID])
            while let row = try rows.next() { tags[row["resource"]] = .some(row["etag"]) }
            return tags
        }
    }

    public func resources(accountID: Int64, calendarRemoteID: String, overlapping window: DateInterval) async throws -> Set<String> {
        try await writer.read { db in
            Set(
                try String.fetchAll(
                    db,
                    sql: """
                        SELECT \(StoredEventKeys.resource) FROM events e JOIN calendars c ON c.id = e.calendar_id
                        WHERE c.account_id = ? AND c.remote_id = ? AND e.deleted_at IS NULL
                            AND e.starts_at < ? AND e.ends_at > ?
                        """,
                    arguments: [accountID, calendarRemoteID, Self.milliseconds(window.end), Self.milliseconds(window.start)]))
        }
    }

    public func applyCalendarChanges(_ changes: CalendarChangeSet, accountID: Int64, now: Date) async throws -> MirrorChangeSummary {
        try await writer.write { db in
            var writer = MirrorWriter(db: db, now: Self.milliseconds(now))
            return try writer.apply(changes, accountID: accountID)
        }
    }

    public func setCalendarEnabled(id: Int64, enabled: Bool, now: Date) async throws -> CalendarInfo {
        let accountID = try await writer.write { db -> Int64 in
            guard let row = try Row.fetchOne(
                db, sql: "SELECT account_id, remote_id, name, is_enabled FROM calendars WHERE id = ?", arguments: [id])
            else { throw StoreError.notFound(entity: "calendar", reference: String(id)) }
            let accountID: Int64 = row["account_id"]
            if !enabled, row["is_enabled"] as Bool {
                // An empty complete listing: every event of the calendar is gone.
                var writer = MirrorWriter(db: db, now: Self.milliseconds(now))
                _ = try writer.apply(
                    CalendarChangeSet(calendar: CalendarDescriptor(remoteID: row["remote_id"], name: row["name"]), scope: .complete),
                    accountID: accountID)
                // Its history went with its events: enabled again, it is asked for it again.
                try db.execute(sql: "DELETE FROM calendar_history_spans WHERE calendar_id = ?", arguments: [id])
            }
            try db.execute(
                sql: "UPDATE calendars SET is_enabled = ?, sync_state = NULL, updated_at = ? WHERE id = ?",
                arguments: [enabled, Self.milliseconds(now), id])
            return accountID
        }
        guard let calendar = try await calendars(accountID: accountID, ownerID: nil).first(where: { $0.id == id }) else {
            throw StoreError.notFound(entity: "calendar", reference: String(id))
        }
        return calendar
    }

    public func removeCalendars(accountID: Int64, except remoteIDs: Set<String>) async throws {
        try await writer.write { db in
            let existing = try Row.fetchAll(db, sql: "SELECT id, remote_id FROM calendars WHERE account_id = ?", arguments: [accountID])
            for row in existing where !remoteIDs.contains(row["remote_id"]) {
                try db.execute(sql: "DELETE FROM calendars WHERE id = ?", arguments: [row["id"] as Int64])
            }
        }
    }

    public func mirroredEvents(accountID: Int64, includeDeleted: Bool) async throws -> [MirroredEvent] {
        try await writer.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT e.id, e.calendar_id, e.meeting_id, e.remote_id, e.ical_uid, \(StoredEventKeys.seriesUID) AS series_uid,
                        e.recurrence_id, e.title, e.starts_at, e.ends_at, e.time_zone, e.is_all_day, e.all_day_start, e.all_day_end,
                        e.status, e.organizer_email, e.organizer_name, e.organizer_response, e.location, e.online_meeting_url, e.web_link, e.etag,
                        e.deleted_at, \(StoredEventKeys.resource) AS resource, m.identity AS meeting_identity
                    FROM events e JOIN calendars c ON c.id = e.calendar_id
                    LEFT JOIN meetings m ON m.id = e.meeting_id
                    WHERE c.account_id = ? AND (? OR e.deleted_at IS NULL)
                    ORDER BY e.starts_at, e.id
                    """,
                arguments: [accountID, includeDeleted])
            var attendees: [Int64: [Attendee]] = [:]
            let attendeeRows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT a.event_id, a.email, a.name, a.role, a.response FROM event_attendees a
                    JOIN events e ON e.id = a.event_id JOIN calendars c ON c.id = e.calendar_id
                    WHERE c.account_id = ? ORDER BY a.event_id, a.email
                    """,
                arguments: [accountID])
            while let row = try attendeeRows.next() {
                attendees[row["event_id"], default: []].append(Self.attendee(row))
            }
            return rows.map { row in Self.mirroredEvent(row, attendees: attendees[row["id"]] ?? []) }
        }
    }

    static func attendee(_ row: Row) -> Attendee {
        Attendee(
            email: row["email"], name: row["name"], role: AttendeeRole(rawValue: row["role"]) ?? .required,
            response: AttendeeResponse(rawValue: row["response"]) ?? .none)
    }

    /// An attendee from four columns read by position from `first` on: email, name, role,
    /// response (listings read thousands; a lookup by name costs more than the value).
    static func attendee(_ row: Row, from first: Int) -> Attendee {
        Attendee(
            email: row[first], name: row[first + 1], role: AttendeeRole(rawValue: row[first + 2]) ?? .required,
            response: AttendeeResponse(rawValue: row[first + 3]) ?? .none)
    }

    /// An event of ``mirroredEvents(accountID:includeDeleted:)``: its organizer (from the
    /// events row, see ``organizer(email:name:response:)``) first among its attendees.
    static func mirroredEvent(_ row: Row, attendees invited: [Attendee]) -> MirroredEvent {
        let organizer = MeetingAttendees.organizer(email: row["organizer_email"], name: row["organizer_name"], response: row["organizer_response"])
        let attendees = organizer.map { organizer in [organizer] + invited.filter { $0.email != organizer.email } } ?? invited
        let occurrence = EventOccurrence(
            remoteID: row["remote_id"], iCalUID: row["ical_uid"], seriesUID: row["series_uid"],
            recurrenceID: (row["recurrence_id"] as Int64?).map(date(milliseconds:)),
            meetingIdentity: row["meeting_identity"] ?? "", title: row["title"],
            start: date(milliseconds: row["starts_at"]), end: date(milliseconds: row["ends_at"]), timeZone: row["time_zone"],
            isAllDay: row["is_all_day"], allDayStart: row["all_day_start"], allDayEnd: row["all_day_end"],
            status: EventStatus(rawValue: row["status"]) ?? .confirmed, organizer: organizer, attendees: attendees,
            location: row["location"], onlineMeetingURL: row["online_meeting_url"], webLink: row["web_link"])
        return MirroredEvent(
            id: row["id"], calendarID: row["calendar_id"], meetingID: row["meeting_id"], resource: row["resource"], etag: row["etag"],
            deletedAt: (row["deleted_at"] as Int64?).map(date(milliseconds:)), occurrence: occurrence)
    }
}
