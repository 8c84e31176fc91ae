import Foundation
import GRDB
import StenoCore

/// Meeting summaries and attendees for a whole page of meetings in four set-based queries
/// (as PostgreSQL's catalog builds them), not four per meeting: a listing of 20,000 meetings
/// otherwise ran 80,000 statements.
extension SQLiteCatalog {
    /// The summaries of the meetings that exist among `ids`.
    static func meetingSummaries(_ db: Database, ids: [Int64]) throws -> [Int64: MeetingSummary] {
        guard !ids.isEmpty else { return [:] }
        let idList = jsonArray(ids)
        // The organizer, place and link come from the latest live event (else the latest one).
        // Columns are read by position: a listing of 20,000 meetings spent half its time
        // looking columns up by name.
        var latest: [Int64: LatestEvent] = [:]
        var live: [Int64: Int] = [:]
        var active: [Int64: Int] = [:]
        let events = try Row.fetchCursor(
            db.cachedStatement(
                sql: """
                    SELECT e.meeting_id, e.organizer_email, e.organizer_name, e.organizer_response, e.location, e.online_meeting_url,
                        e.is_all_day, e.all_day_start, e.all_day_end, e.deleted_at IS NULL AS is_live, e.deleted_at IS NULL AND e.status != 'cancelled' AS is_active
                    FROM events e WHERE e.meeting_id IN (SELECT value FROM json_each(?))
                    ORDER BY e.meeting_id, e.deleted_at IS NOT NULL, e.updated_at DESC, e.id DESC
                    """),
            arguments: [idList])
        while let row = try events.next() {
            let meeting: Int64 = row[0]
            if latest[meeting] == nil { latest[meeting] = LatestEvent(row) }
            if row[9] as Bool { live[meeting, default: 0] += 1 }
            if row[10] as Bool { active[meeting, default: 0] += 1 }
        }
        var recordings: [Int64: [Int64]] = [:]
        let links = try Row.fetchCursor(
            db.cachedStatement(
                sql: """
                    SELECT meeting_id, recording_id FROM links
                    WHERE meeting_id IN (SELECT value FROM json_each(?)) AND +state IN ('linked', 'orphaned') ORDER BY recording_id
                    """),
            arguments: [idList])
        while let row = try links.next() { recordings[row[0], default: []].append(row[1]) }
        let attendees = try meetingAttendees(db, ids: ids)
        var summaries: [Int64: MeetingSummary] = [:]
        summaries.reserveCapacity(ids.count)
        let meetings = try Row.fetchCursor(
            db.cachedStatement(sql: "SELECT id, title, starts_at, ends_at FROM meetings WHERE id IN (SELECT value FROM json_each(?))"),
            arguments: [idList])
        while let row = try meetings.next() {
            let id: Int64 = row[0]
            let event = latest[id]
            let meetingAttendees = attendees[id] ?? []
            let liveCount = live[id] ?? 0
            summaries[id] = MeetingSummary(
                id: id, title: row[1], start: (row[2] as Int64?).map(date(milliseconds:)), end: (row[3] as Int64?).map(date(milliseconds:)),
                organizer: meetingOrganizer(
                    email: event?.organizerEmail, name: event?.organizerName, response: event?.organizerResponse,
                    attendees: meetingAttendees),
                attendeeCount: meetingAttendees.count, recordings: recordings[id] ?? [], location: event?.location,
                onlineMeetingURL: event?.onlineMeetingURL, isCancelled: liveCount > 0 && (active[id] ?? 0) == 0, isGone: liveCount == 0,
                isAllDay: event?.isAllDay ?? false, firstDay: event?.allDayStart,
                lastDay: Self.lastDay(before: event?.allDayEnd, first: event?.allDayStart))
        }
        return summaries
    }

    /// The last day of an all-day event from the day after it (how calendars store the end),
    /// never before the first. Shared by both catalogs.
    package static func lastDay(before end: String?, first: String?) -> String? {
        guard let end else { return first }
        let parts = end.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3 else { return first }
        let previous = CivilDays.from(year: parts[0], month: parts[1], day: parts[2]) - 1
        let day = CivilDays.civil(previous)
        let text = String(format: "%04d-%02d-%02d", day.year, day.month, day.day)
        guard let first, text >= first else { return first }
        return text
    }

    /// One meeting's summary; `.notFound` when there is no such meeting.
    static func meetingSummary(_ db: Database, id: Int64) throws -> MeetingSummary {
        guard let summary = try meetingSummaries(db, ids: [id])[id] else { throw StoreError.notFound(entity: "meeting", reference: String(id)) }
        return summary
    }

    /// Attendees by meeting from the live events, each event's organizer first (one per
    /// email, from the latest event), else from the links' cache. The organizers come from the
    /// events rows (their answer `accepted` unless one was recorded), the others from their
    /// attendee rows.
    static func meetingAttendees(_ db: Database, ids: [Int64]) throws -> [Int64: [Attendee]] {
        guard !ids.isEmpty else { return [:] }
        let idList = jsonArray(ids)
        var live: [Int64: [Attendee]] = [:]
        let rows = try Row.fetchCursor(
            db.cachedStatement(
                sql: """
                    SELECT meeting_id, email, name, role, response FROM (
                        SELECT e.meeting_id, e.updated_at, e.id, 0 AS kind, e.organizer_email AS email, e.organizer_name AS name,
                            'organizer' AS role, coalesce(e.organizer_response, 'accepted') AS response
                        FROM events e WHERE e.meeting_id IN (SELECT value FROM json_each(?1)) AND e.deleted_at IS NULL
                            AND e.organizer_email IS NOT NULL
                        UNION ALL
                        SELECT e.meeting_id, e.updated_at, e.id, 1, ea.email, ea.name, ea.role, ea.response
                        FROM event_attendees ea JOIN events e ON e.id = ea.event_id
                        WHERE e.meeting_id IN (SELECT value FROM json_each(?1)) AND e.deleted_at IS NULL)
                    ORDER BY meeting_id, updated_at DESC, id DESC, kind
                    """),
            arguments: [idList])
        while let row = try rows.next() { live[row[0], default: []].append(attendee(row, from: 1)) }
        let withoutEvents = ids.filter { live[$0] == nil }
        if !withoutEvents.isEmpty {
            let cached = try Row.fetchCursor(
                db.cachedStatement(
                    sql: """
                        SELECT l.meeting_id, la.email, la.name, la.role, la.response
                        FROM link_attendees la JOIN links l ON l.recording_id = la.recording_id
                        WHERE l.meeting_id IN (SELECT value FROM json_each(?)) ORDER BY l.meeting_id, l.recording_id, la.email
                        """),
                arguments: [jsonArray(withoutEvents)])
            while let row = try cached.next() { live[row[0], default: []].append(attendee(row, from: 1)) }
        }
        return live.mapValues(distinctAttendees)
    }

    /// One meeting's attendees (see ``meetingAttendees(_:ids:)``).
    static func meetingAttendees(_ db: Database, id: Int64) throws -> [Attendee] {
        try meetingAttendees(db, ids: [id])[id] ?? []
    }
}

/// What a meeting's summary takes from its latest event, read by position from a row of
/// ``SQLiteCatalog/meetingSummaries(_:ids:)``'s events query (columns 1–8).
private struct LatestEvent {
    var organizerEmail: String?
    var organizerName: String?
    var organizerResponse: String?
    var location: String?
    var onlineMeetingURL: String?
    var isAllDay: Bool
    var allDayStart: String?
    var allDayEnd: String?

    init(_ row: Row) {
        organizerEmail = row[1]
        organizerName = row[2]
        organizerResponse = row[3]
        location = row[4]
        onlineMeetingURL = row[5]
        isAllDay = row[6] ?? false
        allDayStart = row[7]
        allDayEnd = row[8]
    }
}
