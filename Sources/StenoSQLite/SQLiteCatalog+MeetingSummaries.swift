import Foundation
import GRDB
import StenoCatalog
import StenoCore

/// Meeting summaries and attendees for a whole page of meetings in a few set-based queries
/// (as PostgreSQL's catalog builds them), not four per meeting: a listing of 20,000 meetings
/// otherwise ran 80,000 statements.
extension SQLiteCatalog {
    /// The summaries of the meetings that exist among `ids`.
    static func meetingSummaries(_ db: Database, ids: [Int64]) throws -> [Int64: MeetingSummary] {
        try summariesAndAttendees(db, ids: ids).summaries
    }

    /// The summaries of the meetings that exist among `ids`, and their distinct attendees (read
    /// with the same events: `meetings show` needs both).
    static func summariesAndAttendees(
        _ db: Database, ids: [Int64]
    ) throws -> (summaries: [Int64: MeetingSummary], attendees: [Int64: [Attendee]]) {
        guard !ids.isEmpty else { return ([:], [:]) }
        let idList = jsonArray(ids)
        let fold = try meetingEvents(db, idList: idList)
        // Unsorted: a meeting's few recordings are sorted below (sorting every link row of a
        // listing in SQL cost more).
        var recordings: [Int64: [Int64]] = [:]
        let links = try Row.fetchCursor(
            db.cachedStatement(
                sql: """
                    SELECT meeting_id, recording_id FROM links
                    WHERE meeting_id IN (SELECT value FROM json_each(?)) AND +state IN ('linked', 'orphaned')
                    """),
            arguments: [idList])
        while let row = try links.next() { recordings[row[0], default: []].append(row[1]) }
        let attendees = try meetingAttendees(db, ids: ids, fold: fold)
        var summaries: [Int64: MeetingSummary] = [:]
        summaries.reserveCapacity(ids.count)
        let meetings = try Row.fetchCursor(
            db.cachedStatement(sql: "SELECT id, title, starts_at, ends_at FROM meetings WHERE id IN (SELECT value FROM json_each(?))"),
            arguments: [idList])
        while let row = try meetings.next() {
            let id: Int64 = row[0]
            summaries[id] = fold.summary(
                id: id, title: row[1], start: (row[2] as Int64?).map(date(milliseconds:)), end: (row[3] as Int64?).map(date(milliseconds:)),
                recordings: recordings[id].map { $0.count > 1 ? $0.sorted() : $0 } ?? [], attendees: attendees[id] ?? [])
        }
        return (summaries, attendees)
    }

    /// The events of the meetings in `idList` (a JSON array), each live one's row repeated with
    /// each of its attendees: one walk of `events_meeting` and the attendees' primary key, in no
    /// particular order (``MeetingEventFold`` orders what it needs).
    static func meetingEvents(_ db: Database, idList: String) throws -> MeetingEventFold {
        var fold = MeetingEventFold()
        let rows = try Row.fetchCursor(
            db.cachedStatement(
                sql: """
                    SELECT e.meeting_id, e.id, e.updated_at, e.deleted_at IS NULL, e.deleted_at IS NULL AND e.status != 'cancelled',
                        e.organizer_email, e.organizer_name, e.organizer_response, e.location, e.online_meeting_url,
                        e.is_all_day, e.all_day_start, e.all_day_end, ea.email, ea.name, ea.role, ea.response
                    FROM events e LEFT JOIN event_attendees ea ON ea.event_id = e.id AND e.deleted_at IS NULL
                    WHERE e.meeting_id IN (SELECT value FROM json_each(?))
                    """),
            arguments: [idList])
        // Columns are read by position: a listing of 20,000 meetings spent half its time
        // looking columns up by name.
        while let row = try rows.next() {
            fold.add(
                MeetingEventFold.Row(
                    meetingID: row[0], eventID: row[1], updatedAt: row[2], isLive: row[3], isActive: row[4], organizerEmail: row[5],
                    organizerName: row[6], organizerResponse: row[7], location: row[8], onlineMeetingURL: row[9],
                    isAllDay: row[10] ?? false, allDayStart: row[11], allDayEnd: row[12],
                    attendee: row.hasNull(atIndex: 13) ? nil : attendee(row, from: 13)))
        }
        return fold
    }

    /// One meeting's summary and attendees; `.notFound` when there is no such meeting.
    static func meetingSummaryAndAttendees(_ db: Database, id: Int64) throws -> (summary: MeetingSummary, attendees: [Attendee]) {
        let meeting = try summariesAndAttendees(db, ids: [id])
        guard let summary = meeting.summaries[id] else { throw StoreError.notFound(entity: "meeting", reference: String(id)) }
        return (summary, meeting.attendees[id] ?? [])
    }

    /// Attendees by meeting from the live events, each event's organizer first (one per
    /// email, from the latest event), else from the links' cache. The organizers come from the
    /// events rows (their answer `accepted` unless one was recorded), the others from their
    /// attendee rows.
    static func meetingAttendees(_ db: Database, ids: [Int64], fold: MeetingEventFold) throws -> [Int64: [Attendee]] {
        var attendees: [Int64: [Attendee]] = [:]
        var withoutEvents: [Int64] = []
        for id in ids {
            if let live = fold.liveAttendees(of: id) { attendees[id] = live } else { withoutEvents.append(id) }
        }
        if !withoutEvents.isEmpty {
            let cached = try Row.fetchCursor(
                db.cachedStatement(
                    sql: """
                        SELECT l.meeting_id, la.email, la.name, la.role, la.response
                        FROM link_attendees la JOIN links l ON l.recording_id = la.recording_id
                        WHERE l.meeting_id IN (SELECT value FROM json_each(?)) ORDER BY l.meeting_id, l.recording_id, la.email
                        """),
                arguments: [jsonArray(withoutEvents)])
            while let row = try cached.next() { attendees[row[0], default: []].append(attendee(row, from: 1)) }
        }
        return attendees.mapValues(MeetingAttendees.distinct)
    }
}
