import Foundation
import GRDB
import StenoCore

extension SQLiteCatalog {

    public func meetings(_ query: MeetingQuery) async throws -> [MeetingSummary] {
        try await writer.read { db in
            var conditions = [Self.meetingVisible(to: ":v")]
            var arguments: [String: (any DatabaseValueConvertible)?] = ["v": query.visibleTo]
            if let from = query.from {
                conditions.append("m.starts_at >= :from")
                arguments["from"] = Self.milliseconds(from)
            }
            if let to = query.to {
                conditions.append("m.starts_at < :to")
                arguments["to"] = Self.milliseconds(to)
            }
            if let email = query.withEmail {
                conditions.append("""
                    EXISTS (SELECT 1 FROM events e WHERE e.meeting_id = m.id
                            AND (e.organizer_email = :email OR EXISTS (SELECT 1 FROM event_attendees ea WHERE ea.event_id = e.id AND ea.email = :email)))
                    """)
                arguments["email"] = email
            }
            if let title = query.titleContains {
                conditions.append("m.title LIKE :title ESCAPE '\\'")
                arguments["title"] = Self.likePattern(containing: title)
            }
            if let recorded = query.recorded {
                conditions.append(
                    (recorded ? "" : "NOT ") + "EXISTS (SELECT 1 FROM links l WHERE l.meeting_id = m.id AND l.state IN ('linked', 'orphaned'))")
            }
            arguments["limit"] = query.limit
            arguments["offset"] = query.offset
            let sql = """
                SELECT m.id FROM meetings m WHERE \(conditions.joined(separator: " AND "))
                ORDER BY m.starts_at, m.id LIMIT :limit OFFSET :offset
                """
            let ids = try Int64.fetchAll(db, sql: sql, arguments: StatementArguments(arguments))
            return try ids.map { try Self.meetingSummary(db, id: $0) }
        }
    }

    public func meeting(id: Int64, visibleTo userID: Int64?) async throws -> MeetingDetail {
        try await writer.read { db in
            let visible = try Bool.fetchOne(
                db, sql: "SELECT 1 FROM meetings m WHERE m.id = :id AND \(Self.meetingVisible(to: ":v"))",
                arguments: ["id": id, "v": userID]) ?? false
            guard visible else { throw StoreError.notFound(entity: "meeting", reference: String(id)) }
            let summary = try Self.meetingSummary(db, id: id)
            let recordings = try Row.fetchAll(
                db,
                sql: """
                    SELECT r.id, r.title, r.recorded_at, r.duration, u.name AS owner_name, l.state, l.method, l.score
                    FROM links l JOIN recordings r ON r.id = l.recording_id LEFT JOIN users u ON u.id = r.owner_id
                    WHERE l.meeting_id = ? AND l.state IN ('linked', 'orphaned') ORDER BY r.recorded_at, r.id
                    """,
                arguments: [id]
            ).map { row in
                MeetingRecording(
                    id: row["id"], title: row["title"], recordedAt: (row["recorded_at"] as Int64?).map(Self.date(milliseconds:)),
                    duration: row["duration"], owner: row["owner_name"], state: LinkState(rawValue: row["state"]) ?? .linked,
                    method: (row["method"] as String?).flatMap(LinkMethod.init(rawValue:)), score: row["score"])
            }
            return MeetingDetail(meeting: summary, attendees: try Self.meetingAttendees(db, id: id), recordings: recordings)
        }
    }

    /// Attendees from the live events, each event's organizer first (one per email, from the
    /// latest event), else the links' cache. One query: the organizers from the events rows
    /// (their answer `accepted` unless one was recorded), the others from their attendee rows.
    static func meetingAttendees(_ db: Database, id: Int64) throws -> [Attendee] {
        var live = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT email, name, role, response FROM (
                        SELECT e.updated_at, e.id, 0 AS kind, e.organizer_email AS email, e.organizer_name AS name,
                            'organizer' AS role, coalesce(e.organizer_response, 'accepted') AS response
                        FROM events e WHERE e.meeting_id = ?1 AND e.deleted_at IS NULL AND e.organizer_email IS NOT NULL
                        UNION ALL
                        SELECT e.updated_at, e.id, 1, ea.email, ea.name, ea.role, ea.response
                        FROM event_attendees ea JOIN events e ON e.id = ea.event_id WHERE e.meeting_id = ?1 AND e.deleted_at IS NULL)
                    ORDER BY updated_at DESC, id DESC, kind
                    """),
            arguments: [id]
        ).map(attendee)
        if live.isEmpty {
            live = try Row.fetchAll(
                db,
                sql: """
                    SELECT la.email, la.name, la.role, la.response FROM link_attendees la JOIN links l ON l.recording_id = la.recording_id
                    WHERE l.meeting_id = ?
                    """,
                arguments: [id]
            ).map(attendee)
        }
        return distinctAttendees(live)
    }

    /// A `LIKE … ESCAPE '\\'` pattern matching text that contains `text`. Shared by both catalogs.
    package static func likePattern(containing text: String) -> String {
        "%" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_") + "%"
    }

    /// One attendee per email (the first given), organizers first, then by email. Shared by
    /// both catalogs.
    package static func distinctAttendees(_ attendees: [Attendee]) -> [Attendee] {
        var seen = Set<String>()
        let unique = attendees.filter { seen.insert($0.email).inserted }
        return unique.sorted { ($0.role == .organizer ? 0 : 1, $0.email) < ($1.role == .organizer ? 0 : 1, $1.email) }
    }

    /// A meeting's organizer: their entry among the attendees, else one made from the event's
    /// organizer columns. Shared by both catalogs.
    package static func meetingOrganizer(email: String?, name: String?, response: String?, attendees: [Attendee]) -> Attendee? {
        email.flatMap { email in
            attendees.first { $0.email == email.lowercased() } ?? organizer(email: email, name: name, response: response)
        }
    }

    static func meetingSummary(_ db: Database, id: Int64) throws -> MeetingSummary {
        guard let meeting = try Row.fetchOne(db, sql: "SELECT * FROM meetings WHERE id = ?", arguments: [id]) else {
            throw StoreError.notFound(entity: "meeting", reference: String(id))
        }
        let event = try Row.fetchOne(
            db,
            sql: """
                SELECT organizer_email, organizer_name, organizer_response, location, online_meeting_url, status,
                    (SELECT count(*) FROM events WHERE meeting_id = ?1 AND deleted_at IS NULL) AS live,
                    (SELECT count(*) FROM events WHERE meeting_id = ?1 AND deleted_at IS NULL AND status != 'cancelled') AS active
                FROM events WHERE meeting_id = ?1 ORDER BY deleted_at IS NOT NULL, updated_at DESC LIMIT 1
                """,
            arguments: [id])
        let attendees = try meetingAttendees(db, id: id)
        let recordings = try Int64.fetchAll(
            db, sql: "SELECT recording_id FROM links WHERE meeting_id = ? AND state IN ('linked', 'orphaned') ORDER BY recording_id",
            arguments: [id])
        let organizerEmail: String? = event?["organizer_email"]
        let live: Int = event?["live"] ?? 0
        let active: Int = event?["active"] ?? 0
        return MeetingSummary(
            id: id, title: meeting["title"], start: (meeting["starts_at"] as Int64?).map(date(milliseconds:)),
            end: (meeting["ends_at"] as Int64?).map(date(milliseconds:)),
            organizer: meetingOrganizer(
                email: organizerEmail, name: event?["organizer_name"], response: event?["organizer_response"], attendees: attendees),
            attendeeCount: attendees.count, recordings: recordings, location: event?["location"],
            onlineMeetingURL: event?["online_meeting_url"], isCancelled: live > 0 && active == 0, isGone: live == 0)
    }

    /// The words of a search: nil when the text has none; `.invalid` beyond `SearchTerms`'
    /// bounds. Shared by both catalogs.
    package static func searchTerms(_ text: String) throws -> SearchTerms? {
        do {
            return try SearchTerms(text)
        } catch .noWords {
            return nil
        } catch {
            throw StoreError.invalid(error.description)
        }
    }

    public func search(_ text: String, visibleTo userID: Int64?, offset: Int, limit: Int) async throws -> [SearchHit] {
        guard let match = try Self.searchTerms(text)?.matchExpression else { return [] }
        return try await writer.read { db in
            let meetings = try Row.fetchAll(
                db,
                sql: """
                    SELECT m.id, m.title, m.starts_at, snippet(meeting_search, -1, '[', ']', '…', 8) AS snippet
                    FROM meeting_search JOIN meetings m ON m.id = meeting_search.rowid
                    WHERE meeting_search MATCH :match AND \(Self.meetingVisible(to: ":v"))
                    ORDER BY rank LIMIT :limit
                    """,
                arguments: ["match": match, "v": userID, "limit": offset + limit]
            ).map {
                SearchHit(kind: "meeting", id: $0["id"], title: $0["title"], snippet: $0["snippet"],
                          start: ($0["starts_at"] as Int64?).map(Self.date(milliseconds:)))
            }
            let recordings = try Row.fetchAll(
                db,
                sql: """
                    SELECT r.id, coalesce(r.title, recording_search.path, '') AS title, r.recorded_at,
                        snippet(recording_search, -1, '[', ']', '…', 8) AS snippet
                    FROM recording_search JOIN recordings r ON r.id = recording_search.rowid
                    WHERE recording_search MATCH :match AND \(Self.recordingVisible(to: ":v"))
                    ORDER BY rank LIMIT :limit
                    """,
                arguments: ["match": match, "v": userID, "limit": offset + limit]
            ).map {
                SearchHit(kind: "recording", id: $0["id"], title: $0["title"], snippet: $0["snippet"],
                          start: ($0["recorded_at"] as Int64?).map(Self.date(milliseconds:)))
            }
            // Ranks of the two tables do not compare: meetings come first, then recordings.
            return Array((meetings + recordings).dropFirst(offset).prefix(limit))
        }
    }
}
