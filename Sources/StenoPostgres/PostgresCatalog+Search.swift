import Foundation
import PostgresNIO
import StenoCore
import StenoStore

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
        guard let words = try SQLiteCatalog.searchTerms(text)?.words else { return [] }
        let query = SearchLexemes.prefixQuery(words)
        guard !query.isEmpty else { return [] }
        let wanted = Int64(max(0, offset) + max(0, limit))
        // Ranked among the newest matches of each kind (all of them for a word matching fewer).
        let candidates = Int64(SearchHit.rankedAmongNewest)
        let hits = try await snapshot { tx in
            let meetings = try await tx.rows(Self.meetingSearch(query, visibleTo: userID, wanted: wanted, candidates: candidates)).map { row in
                let (id, title, start, searchedTitle, attendees, matches) = try row.decode((Int64, String, Int64?, String, String, Int64).self)
                return SearchHit(
                    kind: "meeting", id: id, title: title,
                    snippet: SearchSnippet.snippet(columns: [searchedTitle, attendees], queryWords: words),
                    start: start.map(Self.date(milliseconds:)), rankedAmongNewest: matches >= candidates ? Int(candidates) : nil)
            }
            let recordings = try await tx.rows(Self.recordingSearch(query, visibleTo: userID, wanted: wanted, candidates: candidates)).map { row in
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

    /// The statement of a search's meeting hits (its plan is checked by tests): the newest
    /// `candidates` matches of the tsquery `query` (among a member's visible set), ranked, the
    /// first `wanted`, with how many candidates there were.
    static func meetingSearch(_ query: String, visibleTo userID: Int64?, wanted: Int64, candidates: Int64) -> PostgresQuery {
        let (values, visible, words, newest, first) = searchValues(
            query, keeping: "s.meeting_id", in: visibleMeetingIDs(of:), visibleTo: userID, wanted: wanted, candidates: candidates)
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
    static func recordingSearch(_ query: String, visibleTo userID: Int64?, wanted: Int64, candidates: Int64) -> PostgresQuery {
        let (values, visible, words, newest, first) = searchValues(
            query, keeping: "s.recording_id", in: visibleRecordingIDs(of:), visibleTo: userID, wanted: wanted, candidates: candidates)
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
    /// (in `set` for a member), the tsquery, the candidates' and the hits' bounds.
    private static func searchValues(
        _ query: String, keeping column: String, in set: (String) -> String, visibleTo userID: Int64?, wanted: Int64, candidates: Int64
    ) -> (values: NumberedValues, visible: String, words: String, newest: String, first: String) {
        var values = NumberedValues()
        let visible = visibility(column, in: set, viewer: userID, values: &values)
        let words = values.bind(query, as: "tsquery")
        let (newest, first) = (values.bind(candidates, as: "bigint"), values.bind(wanted, as: "bigint"))
        return (values, visible, words, newest, first)
    }
}
