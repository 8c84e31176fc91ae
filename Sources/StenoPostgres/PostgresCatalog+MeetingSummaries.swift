import Foundation
import PostgresNIO
import StenoCatalog
import StenoCore

/// Meeting summaries and attendees for a whole page of meetings in three set-based queries
/// (four when some meetings take their attendees from the links' cache): each is a round trip.
/// The event and link rows come unsorted and are folded by ``MeetingEventFold``, as SQLite's
/// catalog does: sorting every event and attendee row of a long listing cost more than reading them.
extension PostgresCatalog {
    /// The summaries of the meetings that exist among `ids`.
    static func meetingSummaries(_ tx: PostgresTransaction, ids: [Int64]) async throws -> [Int64: MeetingSummary] {
        try await summariesAndAttendees(tx, ids: ids).summaries
    }

    /// The summaries of the meetings that exist among `ids`, and their distinct attendees (read
    /// with the same events: `meetings show` needs both, and each query is a round trip).
    static func summariesAndAttendees(
        _ tx: PostgresTransaction, ids: [Int64]
    ) async throws -> (summaries: [Int64: MeetingSummary], attendees: [Int64: [Attendee]]) {
        guard !ids.isEmpty else { return ([:], [:]) }
        let fold = try await meetingEvents(tx, ids: ids)
        var recordings: [Int64: [Int64]] = [:]
        for row in try await tx.rows(
            "SELECT meeting_id, recording_id FROM links WHERE meeting_id = ANY(\(ids)) AND state IN ('linked', 'orphaned')")
        {
            let (meeting, recording) = try row.decode((Int64, Int64).self)
            recordings[meeting, default: []].append(recording)
        }
        let attendees = try await meetingAttendees(tx, ids: ids, fold: fold)
        var summaries: [Int64: MeetingSummary] = [:]
        for row in try await tx.rows("SELECT id, title, starts_at, ends_at FROM meetings WHERE id = ANY(\(ids))") {
            let (id, title, start, end) = try row.decode((Int64, String, Int64?, Int64?).self)
            summaries[id] = fold.summary(
                id: id, title: title, start: start.map(date(milliseconds:)), end: end.map(date(milliseconds:)),
                recordings: recordings[id].map { $0.count > 1 ? $0.sorted() : $0 } ?? [], attendees: attendees[id] ?? [])
        }
        return (summaries, attendees)
    }

    /// The events of the meetings among `ids`, each live one's row repeated with each of its
    /// attendees, in no particular order (``MeetingEventFold`` orders what it needs).
    static func meetingEvents(_ tx: PostgresTransaction, ids: [Int64]) async throws -> MeetingEventFold {
        var fold = MeetingEventFold()
        for row in try await tx.rows(
            """
            SELECT e.meeting_id, e.id, e.updated_at, e.deleted_at IS NULL, e.deleted_at IS NULL AND e.status <> 'cancelled',
                e.organizer_email::text, e.organizer_name, e.organizer_response, e.location, e.online_meeting_url,
                e.is_all_day, e.all_day_start, e.all_day_end, ea.email::text, ea.name, ea.role, ea.response
            FROM events e LEFT JOIN event_attendees ea ON ea.event_id = e.id AND e.deleted_at IS NULL
            WHERE e.meeting_id = ANY(\(ids))
            """)
        {
            let r = row.makeRandomAccess()
            let isAllDay = try r[10].decode(Bool.self)
            let email = try r[13].decode(String?.self)
            // Only an all-day event's dates are shown (its columns may hold stale ones).
            fold.add(
                MeetingEventFold.Row(
                    meetingID: try r[0].decode(Int64.self), eventID: try r[1].decode(Int64.self), updatedAt: try r[2].decode(Int64.self),
                    isLive: try r[3].decode(Bool.self), isActive: try r[4].decode(Bool.self), organizerEmail: try r[5].decode(String?.self),
                    organizerName: try r[6].decode(String?.self), organizerResponse: try r[7].decode(String?.self),
                    location: try r[8].decode(String?.self), onlineMeetingURL: try r[9].decode(String?.self), isAllDay: isAllDay,
                    allDayStart: isAllDay ? try r[11].decode(String?.self) : nil, allDayEnd: isAllDay ? try r[12].decode(String?.self) : nil,
                    attendee: try email.map {
                        storedAttendee(email: $0, name: try r[14].decode(String?.self), role: try r[15].decode(String.self), response: try r[16].decode(String.self))
                    }))
        }
        return fold
    }

    /// Attendees by meeting: from the live events, each event's organizer first (one per email,
    /// from the latest event), else from the links' cache.
    static func meetingAttendees(_ tx: PostgresTransaction, ids: [Int64], fold: MeetingEventFold) async throws -> [Int64: [Attendee]] {
        var attendees: [Int64: [Attendee]] = [:]
        var withoutEvents: [Int64] = []
        for id in ids {
            if let live = fold.liveAttendees(of: id) { attendees[id] = live } else { withoutEvents.append(id) }
        }
        if !withoutEvents.isEmpty {
            for row in try await tx.rows(
                """
                SELECT l.meeting_id, la.email::text, la.name, la.role, la.response
                FROM link_attendees la JOIN links l ON l.recording_id = la.recording_id
                WHERE l.meeting_id = ANY(\(withoutEvents)) ORDER BY l.meeting_id, l.recording_id, la.email
                """)
            {
                let (meeting, email, name, role, response) = try row.decode((Int64, String, String?, String, String).self)
                attendees[meeting, default: []].append(storedAttendee(email: email, name: name, role: role, response: response))
            }
        }
        return attendees.mapValues(MeetingAttendees.distinct)
    }
}
