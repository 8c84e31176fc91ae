import Foundation
import PostgresNIO
import StenoCatalog
import StenoCore

/// Link writes: the link row with its cached event copy, the attendee cache and a history
/// entry per change, for a whole batch of updates in a handful of set-based statements (bulk
/// linking writes tens of thousands of links at once). The batch travels as one JSON
/// parameter that each statement unpacks with `jsonb_to_recordset` (no temporary table: that
/// would write the system catalogs on every call).
///
/// Daemons may link the same recording at once: the batch first locks its recordings
/// (`FOR NO KEY UPDATE`, in id order), so the history's "from" state is the one the change
/// really replaced; events it links to are locked against deletion (`FOR KEY SHARE`).
extension PostgresCatalog {
    public func saveLink(_ update: LinkUpdate) async throws {
        try await saveLinks([update])
    }

    @discardableResult
    public func saveLinks(_ updates: [LinkUpdate]) async throws -> Set<Int64> {
        guard !updates.isEmpty else { return [] }
        // Updates of one recording are applied in order, each seeing the one before it.
        let rounds = LinkUpdate.rounds(updates)
        return try await transaction { tx in
            try await Self.lockTargets(tx, updates)
            var stale: Set<Int64> = []
            for round in rounds {
                var live = round.filter { !stale.contains($0.recordingID) }
                let found = try await Self.staleRecordings(tx, live)
                stale.formUnion(found)
                live.removeAll { found.contains($0.recordingID) }
                if !live.isEmpty { try await Self.apply(tx, try Self.stagedJSON(live)) }
            }
            return stale
        }
    }

    /// The recordings of updates whose link changed since it was read (their rows are locked).
    static func staleRecordings(_ tx: PostgresTransaction, _ updates: [LinkUpdate]) async throws -> Set<Int64> {
        let expecting = updates.filter { $0.expected != nil }
        guard !expecting.isEmpty else { return [] }
        var current: [Int64: LinkExpectation] = [:]
        let ids = expecting.map(\.recordingID)
        for row in try await tx.rows("SELECT recording_id, state, event_id, is_manual FROM links WHERE recording_id = ANY(\(ids))") {
            let (id, state, eventID, isManual) = try row.decode((Int64, String, Int64?, Bool).self)
            current[id] = LinkExpectation(state: LinkState(rawValue: state), eventID: eventID, isManual: isManual)
        }
        return Set(expecting.filter { $0.expected != (current[$0.recordingID] ?? LinkExpectation(nil)) }.map(\.recordingID))
    }

    /// One round of updates as the JSON array the statements read.
    static func stagedJSON(_ updates: [LinkUpdate]) throws -> String {
        let staged = updates.enumerated().map { seq, update in
            StagedLinkUpdate(
                seq: seq, recordingID: update.recordingID, eventID: update.eventID, method: update.method?.rawValue, score: update.score,
                state: update.state.rawValue, isManual: update.isManual, candidates: update.candidatesJSON, keepsCache: update.keepsCache,
                actor: update.actor, action: update.action, reason: update.reason, at: milliseconds(update.at))
        }
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return String(decoding: try encoder.encode(staged), as: UTF8.self)
    }

    /// Locks the recordings written and the events linked to; throws `.notFound` for either
    /// when it does not exist.
    static func lockTargets(_ tx: PostgresTransaction, _ updates: [LinkUpdate]) async throws {
        let recordingIDs = Array(Set(updates.map(\.recordingID))).sorted()
        let locked = Set(
            try await tx.rows("SELECT id FROM recordings WHERE id = ANY(\(recordingIDs)) ORDER BY id FOR NO KEY UPDATE")
                .map { try $0.decode(Int64.self) })
        if let missing = updates.first(where: { !locked.contains($0.recordingID) }) {
            throw StoreError.notFound(entity: "recording", reference: String(missing.recordingID))
        }
        let eventIDs = Array(Set(updates.compactMap(\.eventID))).sorted()
        guard !eventIDs.isEmpty else { return }
        let events = Set(
            try await tx.rows("SELECT id FROM events WHERE id = ANY(\(eventIDs)) ORDER BY id FOR KEY SHARE").map { try $0.decode(Int64.self) })
        if let missing = updates.lazy.compactMap(\.eventID).first(where: { !events.contains($0) }) {
            throw StoreError.notFound(entity: "event", reference: String(missing))
        }
    }

    /// The staged round as a table `u` (`$1` = its JSON).
    static let stagedUpdates = """
        WITH u AS (
            SELECT * FROM jsonb_to_recordset($1::jsonb) AS u(seq bigint, recording_id bigint, event_id bigint, method text,
                score double precision, state text, is_manual boolean, candidates text, keeps_cache boolean, actor text,
                action text, reason text, at bigint))
        """

    /// The meeting a staged update links to: its event's, or for an orphan the one it had.
    static let stagedMeeting = "CASE WHEN u.event_id IS NOT NULL THEN e.meeting_id WHEN u.keeps_cache THEN l.meeting_id END"

    /// The meeting a staged update leaves the recording linked to, for its history: a manual
    /// unlink keeps the meeting's cache (and id) on the link, but links to nothing.
    static let stagedHistoryMeeting =
        "CASE WHEN u.event_id IS NOT NULL THEN e.meeting_id WHEN u.keeps_cache AND u.state <> 'unlinked' THEN l.meeting_id END"

    /// What a staged update caches of `column`: its event's, an orphan's previous copy, or nothing.
    static func cached(_ eventColumn: String, _ linkColumn: String) -> String {
        "CASE WHEN u.event_id IS NOT NULL THEN e.\(eventColumn) WHEN u.keeps_cache THEN l.\(linkColumn) END"
    }

    /// Applies one round: history (which needs the links as they were), links, attendees.
    static func apply(_ tx: PostgresTransaction, _ round: String) async throws {
        let statements = [
            """
            \(stagedUpdates)
            INSERT INTO link_history (recording_id, at, actor, action, from_state, to_state, from_meeting_id, to_meeting_id,
                method, score, reason)
            SELECT u.recording_id, u.at, u.actor, u.action, l.state, u.state, l.meeting_id, \(stagedHistoryMeeting), u.method, u.score, u.reason
            FROM u LEFT JOIN links l ON l.recording_id = u.recording_id LEFT JOIN events e ON e.id = u.event_id
            ORDER BY u.seq
            """,
            // An orphan, and a recording unlinked by hand, keep their cached copy; others keep none.
            """
            \(stagedUpdates)
            INSERT INTO links (recording_id, meeting_id, event_id, method, score, state, is_manual, candidates,
                cached_title, cached_starts_at, cached_ends_at, cached_ical_uid, cached_event_remote_id, validated_at, updated_at)
            SELECT u.recording_id, \(stagedMeeting), u.event_id, u.method, u.score, u.state, u.is_manual, u.candidates,
                \(cached("title", "cached_title")), \(cached("starts_at", "cached_starts_at")), \(cached("ends_at", "cached_ends_at")),
                \(cached("ical_uid", "cached_ical_uid")), \(cached("remote_id", "cached_event_remote_id")), u.at, u.at
            FROM u LEFT JOIN links l ON l.recording_id = u.recording_id LEFT JOIN events e ON e.id = u.event_id
            ORDER BY u.seq
            ON CONFLICT (recording_id) DO UPDATE SET meeting_id = excluded.meeting_id, event_id = excluded.event_id,
                method = excluded.method, score = excluded.score, state = excluded.state, is_manual = excluded.is_manual,
                candidates = excluded.candidates, cached_title = excluded.cached_title,
                cached_starts_at = excluded.cached_starts_at, cached_ends_at = excluded.cached_ends_at,
                cached_ical_uid = excluded.cached_ical_uid, cached_event_remote_id = excluded.cached_event_remote_id,
                validated_at = excluded.validated_at, updated_at = excluded.updated_at
            """,
            // The attendee cache follows the event (the organizer is one of them); an orphan keeps it.
            """
            \(stagedUpdates)
            DELETE FROM link_attendees WHERE recording_id IN (SELECT recording_id FROM u WHERE event_id IS NOT NULL OR NOT keeps_cache)
            """,
            """
            \(stagedUpdates)
            INSERT INTO link_attendees (recording_id, email, name, role, response)
            SELECT u.recording_id, ea.email, ea.name, ea.role, ea.response FROM u JOIN event_attendees ea ON ea.event_id = u.event_id
            ON CONFLICT DO NOTHING
            """,
            """
            \(stagedUpdates)
            INSERT INTO link_attendees (recording_id, email, name, role, response)
            SELECT u.recording_id, e.organizer_email, e.organizer_name, 'organizer', coalesce(e.organizer_response, 'accepted')
            FROM u JOIN events e ON e.id = u.event_id
            WHERE e.organizer_email IS NOT NULL
            ON CONFLICT DO NOTHING
            """,
        ]
        for statement in statements { try await tx.execute(.numbered(statement, [round])) }
    }
}

/// One update as the staging JSON carries it: its keys, in snake case, are the columns of
/// ``PostgresCatalog/stagedUpdates``; nil values are left out and read as NULL.
private struct StagedLinkUpdate: Encodable {
    var seq: Int
    var recordingID: Int64
    var eventID: Int64?
    var method: String?
    var score: Double?
    var state: String
    var isManual: Bool
    var candidates: String?
    var keepsCache: Bool
    var actor: String
    var action: String
    var reason: String
    var at: Int64
}
