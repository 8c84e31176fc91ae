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
            let meetings = try await tx.rows(
                .numbered(
                    """
                    SELECT id, title, starts_at, searched, attendees, count(*) OVER () FROM (
                        SELECT m.id, m.title, m.starts_at, s.title AS searched, s.attendees, ts_rank(s.lexemes, $2::tsquery) AS rank
                        FROM meeting_search s JOIN meetings m ON m.id = s.meeting_id
                        WHERE s.lexemes @@ $2::tsquery AND \(SQLiteCatalog.meetingVisible(to: "$1::bigint"))
                        ORDER BY s.meeting_id DESC LIMIT $4) candidates
                    ORDER BY rank DESC, id DESC LIMIT $3
                    """,
                    [userID, query, wanted, candidates])
            ).map { row in
                let (id, title, start, searchedTitle, attendees, matches) = try row.decode((Int64, String, Int64?, String, String, Int64).self)
                return SearchHit(
                    kind: "meeting", id: id, title: title,
                    snippet: SearchSnippet.snippet(columns: [searchedTitle, attendees], queryWords: words),
                    start: start.map(Self.date(milliseconds:)), rankedAmongNewest: matches >= candidates ? Int(candidates) : nil)
            }
            let recordings = try await tx.rows(
                .numbered(
                    """
                    SELECT id, title, recorded_at, searched, transcript, path, count(*) OVER () FROM (
                        SELECT r.id, coalesce(r.title, s.path, '') AS title, r.recorded_at, s.title AS searched, s.transcript, s.path,
                            ts_rank(s.lexemes, $2::tsquery) AS rank
                        FROM recording_search s JOIN recordings r ON r.id = s.recording_id
                        WHERE s.lexemes @@ $2::tsquery AND \(SQLiteCatalog.recordingVisible(to: "$1::bigint"))
                        ORDER BY s.recording_id DESC LIMIT $4) candidates
                    ORDER BY rank DESC, id DESC LIMIT $3
                    """,
                    [userID, query, wanted, candidates])
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
}
