import GRDB
import StenoPostgres

/// Where `steno-bench query` reads its floor: the plain SQLite statements of `readFloor`, or,
/// with `--postgres`, the same statements on PostgreSQL (ids bound as one `bigint[]`), so a
/// PostgreSQL answer is measured against its own server.
enum QueryFloor {
    case sqlite(DatabasePool)
    case postgres(PostgresCatalog)
}

extension QueryCase {
    /// One plain statement on `floor` reading the fields the call answered for its rows;
    /// returns how many rows it read.
    func readFloor(_ floor: QueryFloor, ids: [Int64]) async throws -> Int {
        switch floor {
        case .sqlite(let database): return try readFloor(database, ids: ids)
        case .postgres(let catalog): return try await readPostgresFloor(catalog, ids: ids)
        }
    }

    /// `readFloor` on PostgreSQL.
    func readPostgresFloor(_ catalog: PostgresCatalog, ids: [Int64]) async throws -> Int {
        switch self.floor {
        case .meetings:
            return try await catalog.countRows(
                """
                SELECT m.id, m.title, m.starts_at, m.ends_at, e.organizer_email, e.organizer_name, e.organizer_response,
                    e.location, e.online_meeting_url, e.status, e.deleted_at, e.is_all_day, e.all_day_start, e.all_day_end,
                    (SELECT count(*) FROM event_attendees ea WHERE ea.event_id = e.id) AS attendees,
                    (SELECT string_agg(l.recording_id::text, ',') FROM links l
                     WHERE l.meeting_id = m.id AND l.state IN ('linked', 'orphaned')) AS recordings
                FROM unnest($1::bigint[]) j(id) JOIN meetings m ON m.id = j.id
                LEFT JOIN events e ON e.id = (SELECT id FROM events WHERE meeting_id = m.id ORDER BY updated_at DESC LIMIT 1)
                """, ids: ids)
        case .recordings:
            return try await catalog.countRows(
                """
                SELECT r.*, u.name, p.path, p.is_present FROM unnest($1::bigint[]) j(id) JOIN recordings r ON r.id = j.id
                LEFT JOIN users u ON u.id = r.owner_id LEFT JOIN recording_paths p ON p.recording_id = r.id
                """, ids: ids)
        case .links:
            return try await catalog.countRows(
                """
                SELECT l.*, r.title, r.recorded_at, u.name, m.title, m.starts_at, m.ends_at
                FROM unnest($1::bigint[]) j(id) JOIN links l ON l.recording_id = j.id JOIN recordings r ON r.id = l.recording_id
                LEFT JOIN users u ON u.id = r.owner_id LEFT JOIN meetings m ON m.id = l.meeting_id
                """, ids: ids)
        case .attendees(let meeting):
            return try await catalog.countRows(Self.postgresAttendees, id: meeting)
        case .meeting(let meeting):
            let rows = try await catalog.countRows("SELECT * FROM meetings WHERE id = $1", id: meeting)
            let links = try await catalog.countRows(
                """
                SELECT l.*, r.title, r.recorded_at, r.duration, u.name FROM links l JOIN recordings r ON r.id = l.recording_id
                LEFT JOIN users u ON u.id = r.owner_id WHERE l.meeting_id = $1
                """, id: meeting)
            return rows + links + (try await catalog.countRows(Self.postgresAttendees, id: meeting))
        case .search(let text, let visible):
            // A hit's fields: its title, time and the texts its snippet is cut from (unranked);
            // a member's among those they may see.
            let meetings = try await catalog.countRows(
                """
                SELECT s.meeting_id, m.title, m.starts_at, s.title, s.attendees FROM meeting_search s JOIN meetings m ON m.id = s.meeting_id
                WHERE s.lexemes @@ $1::tsquery \(visible == nil ? "" : "AND s.meeting_id = ANY($3::bigint[])")
                LIMIT $2::bigint
                """, searching: text, limit: ids.count, among: visible?.meetings)
            return meetings
                + (try await catalog.countRows(
                    """
                    SELECT s.recording_id, r.title, r.recorded_at, s.title, s.transcript, s.path
                    FROM recording_search s JOIN recordings r ON r.id = s.recording_id WHERE s.lexemes @@ $1::tsquery
                    \(visible == nil ? "" : "AND s.recording_id = ANY($3::bigint[])") LIMIT $2::bigint
                    """, searching: text, limit: max(0, ids.count - meetings), among: visible?.recordings))
        }
    }

    /// A meeting's attendee rows: its live events' organizers and attendees.
    static let postgresAttendees = """
        SELECT e.organizer_email, e.organizer_name, e.organizer_response FROM events e WHERE e.meeting_id = $1 AND e.deleted_at IS NULL
        UNION ALL
        SELECT ea.email, ea.name, ea.response FROM events e JOIN event_attendees ea ON ea.event_id = e.id
        WHERE e.meeting_id = $1 AND e.deleted_at IS NULL
        """
}
