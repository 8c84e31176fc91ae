import Foundation
import PostgresNIO
import StenoCatalog
import StenoCore

/// Full-text search over `meeting_search` and `recording_search`, finding what SQLite's FTS5
/// finds for the same words: the rows hold the lexemes ``SearchLexemes`` makes (words folded
/// as FTS5's unicode61 folds them), and every query word matches as a prefix (`'word':*`).
/// Snippets are cut in Swift as FTS5's `snippet()` cuts them (``SearchSnippet``).
///
/// Ranks differ: FTS5 orders by bm25, this by `ts_rank` (then newest first); the hits are
/// the same, the order among hits of one kind may not be. Both rank among the newest
/// ``SearchHit/rankedAmongNewest`` matches of each kind only.
extension PostgresCatalog {
    public func search(_ text: String, visibleTo userID: Int64?, offset: Int, limit: Int) async throws -> [SearchHit] {
        guard let words = try SearchTerms.forStore(text)?.words else { return [] }
        let query = SearchLexemes.prefixQuery(words)
        guard !query.isEmpty else { return [] }
        let wanted = Int64(max(0, offset) + max(0, limit))
        // Ranked among the newest matches of each kind (all of them for a word matching fewer).
        let candidates = Int64(SearchHit.rankedAmongNewest)
        let hits = try await snapshot { tx in
            // An admin's candidates are found first; a member's are among their visible sets.
            let meetingIDs: [Int64]
            let recordingIDs: [Int64]
            if let userID {
                let stamp = try await Self.snapshotStamp(tx)
                meetingIDs = try await visibleMeetingKeys(tx, of: userID, stamp: stamp).map(\.id)
                recordingIDs = try await visibleRecordingIDs(tx, of: userID, stamp: stamp)
            } else {
                meetingIDs = try await Self.newestMatches(tx, in: "meeting_search", key: "meeting_id", query: query, candidates: candidates)
                recordingIDs = try await Self.newestMatches(tx, in: "recording_search", key: "recording_id", query: query, candidates: candidates)
            }
            let meetings = try await tx.rows(
                Self.meetingSearch(query, visibleTo: nil, among: meetingIDs, wanted: wanted, candidates: candidates)
            ).map { row in
                let (id, title, start, searchedTitle, attendees, matches) = try row.decode((Int64, String, Int64?, String, String, Int64).self)
                return SearchHit(
                    kind: "meeting", id: id, title: title,
                    snippet: SearchSnippet.snippet(columns: [searchedTitle, attendees], queryWords: words),
                    start: start.map(Self.date(milliseconds:)), rankedAmongNewest: matches >= candidates ? Int(candidates) : nil)
            }
            let recordings = try await tx.rows(
                Self.recordingSearch(query, visibleTo: nil, among: recordingIDs, wanted: wanted, candidates: candidates)
            ).map { row in
                let (id, title, recordedAt, searchedTitle, transcript, path, matches) = try row.decode(
                    (Int64, String, Int64?, String, String, String, Int64).self)
                return SearchHit(
                    kind: "recording", id: id, title: title,
                    snippet: SearchSnippet.snippet(columns: [searchedTitle, transcript, path], queryWords: words),
                    start: recordedAt.map(Self.date(milliseconds:)), rankedAmongNewest: matches >= candidates ? Int(candidates) : nil)
            }
            return meetings + recordings
        }
        // Ranks of the two tables do not compare: meetings come first, then recordings.
        return Array(hits.dropFirst(offset).prefix(limit))
    }

    /// The rows of a search table that ``newestMatches(_:in:key:query:candidates:)`` walks before
    /// it asks the full-text index: a word matching one row in a hundred has its candidates
    /// there; a rarer one costs at most this walk and an index read of under
    /// `candidates × table rows / walked` matches. The walk and that read cost alike near the
    /// square root of `candidates × table rows` (at a million meetings and 200 candidates,
    /// some 14,000): a walk of 100,000 made a word nothing matches cost 32 ms, most of it the walk.
    static let newestRowsWalked: Int64 = 20_000

    /// The ids of the newest `candidates` rows of `table` (keyed by `key`) that match the tsquery
    /// `query`, read without walking the whole table: the newest ``newestRowsWalked`` rows
    /// first, else every match through the full-text index, ordered in memory.
    ///
    /// One statement cannot do both: PostgreSQL estimates every prefix tsquery alike (some
    /// twenty thousand matches in a million), so it walked the primary key newest first testing
    /// each row, the whole table for a word nothing matches (179 ms at a million meetings).
    static func newestMatches(
        _ tx: PostgresTransaction, in table: String, key: String, query: String, candidates: Int64
    ) async throws -> [Int64] {
        let (walk, indexRead) = newestMatchStatements(in: table, key: key, query: query, candidates: candidates)
        let walked = try await tx.rows(walk).map { try $0.decode(Int64.self) }
        guard walked.count < candidates else { return walked }
        return try await tx.rows(indexRead).map { try $0.decode(Int64.self) }
    }

    /// The two statements of ``newestMatches(_:in:key:query:candidates:)`` (their plans are
    /// checked by tests): the walk of the newest rows, and the read through the full-text index.
    static func newestMatchStatements(
        in table: String, key: String, query: String, candidates: Int64
    ) -> (walk: PostgresQuery, indexRead: PostgresQuery) {
        let walk = PostgresQuery.numbered(
            """
            SELECT \(key) FROM (SELECT \(key), lexemes FROM \(table) ORDER BY \(key) DESC LIMIT $1::bigint) newest
            WHERE lexemes @@ $2::tsquery ORDER BY \(key) DESC LIMIT $3::bigint
            """, [newestRowsWalked, query, candidates])
        // `+ 0`: the primary key must not serve the order, or the planner walks it again.
        let indexRead = PostgresQuery.numbered(
            "SELECT \(key) FROM \(table) WHERE lexemes @@ $1::tsquery ORDER BY \(key) + 0 DESC LIMIT $2::bigint", [query, candidates])
        return (walk, indexRead)
    }

    /// The statement of a search's meeting hits (its plan is checked by tests): the newest
    /// `candidates` matches of the tsquery `query` (among a member's visible set, or `ids`
    /// when the caller found them), ranked, the first `wanted`, with how many candidates there were.
    static func meetingSearch(_ query: String, visibleTo userID: Int64?, among ids: [Int64]? = nil, wanted: Int64, candidates: Int64) -> PostgresQuery {
        let (values, visible, words, newest, first) = searchValues(
            query, keeping: "s.meeting_id", in: visibleMeetingIDs(of:), visibleTo: userID, among: ids, wanted: wanted, candidates: candidates)
        return values.query(
            """
            SELECT id, title, starts_at, searched, attendees, count(*) OVER () FROM (
                SELECT m.id, m.title, m.starts_at, s.title AS searched, s.attendees, ts_rank(s.lexemes, \(words)) AS rank
                FROM meeting_search s JOIN meetings m ON m.id = s.meeting_id
                WHERE s.lexemes @@ \(words) AND \(visible)
                ORDER BY s.meeting_id DESC LIMIT \(newest)) candidates
            ORDER BY rank DESC, id DESC LIMIT \(first)
            """)
    }

    /// The statement of a search's recording hits, as ``meetingSearch(_:visibleTo:wanted:candidates:)``.
    static func recordingSearch(_ query: String, visibleTo userID: Int64?, among ids: [Int64]? = nil, wanted: Int64, candidates: Int64) -> PostgresQuery {
        let (values, visible, words, newest, first) = searchValues(
            query, keeping: "s.recording_id", in: visibleRecordingIDs(of:), visibleTo: userID, among: ids, wanted: wanted, candidates: candidates)
        return values.query(
            """
            SELECT id, title, recorded_at, searched, transcript, path, count(*) OVER () FROM (
                SELECT r.id, coalesce(r.title, s.path, '') AS title, r.recorded_at, s.title AS searched, s.transcript, s.path,
                    ts_rank(s.lexemes, \(words)) AS rank
                FROM recording_search s JOIN recordings r ON r.id = s.recording_id
                WHERE s.lexemes @@ \(words) AND \(visible)
                ORDER BY s.recording_id DESC LIMIT \(newest)) candidates
            ORDER BY rank DESC, id DESC LIMIT \(first)
            """)
    }

    /// The values of a search statement and their placeholders: the visibility of `column`
    /// (in `set` for a member; among `ids` when given), the tsquery, the candidates' and the
    /// hits' bounds.
    private static func searchValues(
        _ query: String, keeping column: String, in set: (String) -> String, visibleTo userID: Int64?, among ids: [Int64]?, wanted: Int64,
        candidates: Int64
    ) -> (values: NumberedValues, visible: String, words: String, newest: String, first: String) {
        var values = NumberedValues()
        var visible = visibility(column, in: set, viewer: userID, values: &values)
        if let ids { visible += " AND \(column) = ANY(\(values.bind(ids, as: "bigint[]")))" }
        let words = values.bind(query, as: "tsquery")
        let (newest, first) = (values.bind(candidates, as: "bigint"), values.bind(wanted, as: "bigint"))
        return (values, visible, words, newest, first)
    }
}
