import Foundation
import GRDB
import StenoCatalog
import StenoCore

/// Link writes: the link row with its cached event copy, the attendee cache and a history
/// entry per change, applied to a whole batch of updates with a handful of set-based
/// statements (bulk linking writes tens of thousands of links at once).
extension SQLiteCatalog {
    public func saveLink(_ update: LinkUpdate) async throws {
        try await saveLinks([update])
    }

    @discardableResult
    public func saveLinks(_ updates: [LinkUpdate]) async throws -> Set<Int64> {
        guard !updates.isEmpty else { return [] }
        return try await writer.write { db in try Self.writeLinks(db, updates) }
    }

    /// Writes the updates inside the caller's transaction. Updates of the same recording are
    /// applied in order, each seeing the one before it. Returns the recordings whose link was
    /// no longer as an update expected (that update and the recording's later ones are skipped).
    @discardableResult
    static func writeLinks(_ db: Database, _ updates: [LinkUpdate]) throws -> Set<Int64> {
        try db.execute(
            sql: """
                CREATE TEMP TABLE IF NOT EXISTS link_updates (
                    seq INTEGER PRIMARY KEY, recording_id INTEGER NOT NULL UNIQUE, event_id INTEGER, method TEXT, score REAL,
                    state TEXT NOT NULL, is_manual INTEGER NOT NULL, candidates TEXT, keeps_cache INTEGER NOT NULL,
                    actor TEXT NOT NULL, action TEXT NOT NULL, reason TEXT NOT NULL, at INTEGER NOT NULL,
                    expects INTEGER NOT NULL, expected_state TEXT, expected_event_id INTEGER, expected_manual INTEGER)
                """)
        var stale: Set<Int64> = []
        for round in LinkUpdate.rounds(updates) {
            defer { try? db.execute(sql: "DELETE FROM temp.link_updates") }
            try stage(db, round.filter { !stale.contains($0.recordingID) })
            stale.formUnion(try dropStale(db))
            try applyStaged(db)
        }
        return stale
    }

    /// Removes the staged updates whose link changed since it was read; returns their recordings.
    static func dropStale(_ db: Database) throws -> Set<Int64> {
        Set(
            try Int64.fetchAll(
                db.cachedStatement(
                    sql: """
                        DELETE FROM temp.link_updates AS u
                        WHERE u.expects AND NOT EXISTS (
                            SELECT 1 FROM (SELECT 1) LEFT JOIN links l ON l.recording_id = u.recording_id
                            WHERE l.state IS u.expected_state AND l.event_id IS u.expected_event_id
                                AND coalesce(l.is_manual, 0) = u.expected_manual)
                        RETURNING recording_id
                        """)))
    }

    /// Copies one round of updates into the connection's temporary table.
    static func stage(_ db: Database, _ updates: [LinkUpdate]) throws {
        let insert = try db.cachedStatement(
            sql: """
                INSERT INTO temp.link_updates (recording_id, event_id, method, score, state, is_manual, candidates, keeps_cache,
                    actor, action, reason, at, expects, expected_state, expected_event_id, expected_manual)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        for update in updates {
            try insert.execute(arguments: [
                update.recordingID, update.eventID, update.method?.rawValue, update.score, update.state.rawValue, update.isManual,
                update.candidatesJSON, update.keepsCache, update.actor, update.action, update.reason, milliseconds(update.at),
                update.expected != nil, update.expected?.state?.rawValue, update.expected?.eventID, update.expected?.isManual ?? false,
            ])
        }
        if let missing = try Int64.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT u.event_id FROM temp.link_updates u LEFT JOIN events e ON e.id = u.event_id
                    WHERE u.event_id IS NOT NULL AND e.id IS NULL LIMIT 1
                    """))
        {
            throw StoreError.notFound(entity: "event", reference: String(missing))
        }
    }

    /// The meeting a staged update links to: its event's, or for an orphan the one it had.
    static let stagedMeeting = "CASE WHEN u.event_id IS NOT NULL THEN e.meeting_id WHEN u.keeps_cache THEN l.meeting_id END"

    /// The meeting a staged update leaves the recording linked to, for its history: a manual
    /// unlink keeps the meeting's cache (and id) on the link, but links to nothing.
    static let stagedHistoryMeeting =
        "CASE WHEN u.event_id IS NOT NULL THEN e.meeting_id WHEN u.keeps_cache AND u.state <> 'unlinked' THEN l.meeting_id END"

    /// Applies the staged round: history (which needs the links as they were), links, attendees.
    static func applyStaged(_ db: Database) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO link_history (recording_id, at, actor, action, from_state, to_state, from_meeting_id, to_meeting_id,
                    method, score, reason)
                SELECT u.recording_id, u.at, u.actor, u.action, l.state, u.state, l.meeting_id, \(stagedHistoryMeeting),
                    u.method, u.score, u.reason
                FROM temp.link_updates u LEFT JOIN links l ON l.recording_id = u.recording_id LEFT JOIN events e ON e.id = u.event_id
                ORDER BY u.seq
                """
        ).execute()
        // An orphan, and a recording unlinked by hand, keep their cached copy; others keep none.
        try db.cachedStatement(
            sql: """
                INSERT INTO links (recording_id, meeting_id, event_id, method, score, state, is_manual, candidates,
                    cached_title, cached_starts_at, cached_ends_at, cached_ical_uid, cached_event_remote_id, validated_at, updated_at)
                SELECT u.recording_id, \(stagedMeeting), u.event_id, u.method, u.score, u.state, u.is_manual, u.candidates,
                    CASE WHEN u.event_id IS NOT NULL THEN e.title WHEN u.keeps_cache THEN l.cached_title END,
                    CASE WHEN u.event_id IS NOT NULL THEN e.starts_at WHEN u.keeps_cache THEN l.cached_starts_at END,
                    CASE WHEN u.event_id IS NOT NULL THEN e.ends_at WHEN u.keeps_cache THEN l.cached_ends_at END,
                    CASE WHEN u.event_id IS NOT NULL THEN e.ical_uid WHEN u.keeps_cache THEN l.cached_ical_uid END,
                    CASE WHEN u.event_id IS NOT NULL THEN e.remote_id WHEN u.keeps_cache THEN l.cached_event_remote_id END,
                    u.at, u.at
                FROM temp.link_updates u LEFT JOIN links l ON l.recording_id = u.recording_id LEFT JOIN events e ON e.id = u.event_id
                WHERE true ORDER BY u.seq
                ON CONFLICT(recording_id) DO UPDATE SET meeting_id = excluded.meeting_id, event_id = excluded.event_id,
                    method = excluded.method, score = excluded.score, state = excluded.state, is_manual = excluded.is_manual,
                    candidates = excluded.candidates, cached_title = excluded.cached_title,
                    cached_starts_at = excluded.cached_starts_at, cached_ends_at = excluded.cached_ends_at,
                    cached_ical_uid = excluded.cached_ical_uid, cached_event_remote_id = excluded.cached_event_remote_id,
                    validated_at = excluded.validated_at, updated_at = excluded.updated_at
                """
        ).execute()
        // The attendee cache follows the event (the organizer is one of them); an orphan keeps it.
        try db.cachedStatement(
            sql: """
                DELETE FROM link_attendees WHERE recording_id IN
                    (SELECT recording_id FROM temp.link_updates WHERE event_id IS NOT NULL OR NOT keeps_cache)
                """
        ).execute()
        try db.cachedStatement(
            sql: """
                INSERT INTO link_attendees (recording_id, email, name, role, response)
                SELECT u.recording_id, ea.email, ea.name, ea.role, ea.response
                FROM temp.link_updates u JOIN event_attendees ea ON ea.event_id = u.event_id
                WHERE true
                ON CONFLICT DO NOTHING
                """
        ).execute()
        try db.cachedStatement(
            sql: """
                INSERT INTO link_attendees (recording_id, email, name, role, response)
                SELECT u.recording_id, e.organizer_email, e.organizer_name, 'organizer', coalesce(e.organizer_response, 'accepted')
                FROM temp.link_updates u JOIN events e ON e.id = u.event_id
                WHERE e.organizer_email IS NOT NULL
                ON CONFLICT DO NOTHING
                """
        ).execute()
    }
}
