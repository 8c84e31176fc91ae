import Foundation
import PostgresNIO
import StenoCore
import StenoStore

/// Full-text search over `meeting_search` and `recording_search`, finding what SQLite's FTS5
/// finds for the same words: the rows hold the lexemes ``SearchLexemes`` makes (words folded
/// as FTS5's unicode61 folds them), and every query word matches as a prefix (`'word':*`).
/// Snippets are cut in Swift as FTS5's `snippet()` cuts them (``SearchSnippet``).
///
/// Ranks differ: FTS5 orders by bm25, this by `ts_rank` (then id); the hits are the same,
/// the order among hits of one kind may not be.
extension PostgresCatalog {
    public func search(_ text: String, visibleTo userID: Int64?, offset: Int, limit: Int) async throws -> [SearchHit] {
        guard let words = try SQLiteCatalog.searchTerms(text)?.words else { return [] }
        let query = SearchLexemes.prefixQuery(words)
        guard !query.isEmpty else { return [] }
        let wanted = Int64(max(0, offset) + max(0, limit))
        let hits = try await snapshot { tx in
            let meetings = try await tx.rows(
                .numbered(
                    """
                    SELECT m.id, m.title, m.starts_at, s.title, s.attendees
                    FROM meeting_search s JOIN meetings m ON m.id = s.meeting_id
                    WHERE s.lexemes @@ $2::tsquery AND \(SQLiteCatalog.meetingVisible(to: "$1::bigint"))
                    ORDER BY ts_rank(s.lexemes, $2::tsquery) DESC, m.id LIMIT $3
                    """,
                    [userID, query, wanted])
            ).map { row in
                let (id, title, start, searchedTitle, attendees) = try row.decode((Int64, String, Int64?, String, String).self)
                return SearchHit(
                    kind: "meeting", id: id, title: title,
                    snippet: SearchSnippet.snippet(columns: [searchedTitle, attendees], queryWords: words),
                    start: start.map(Self.date(milliseconds:)))
            }
            let recordings = try await tx.rows(
                .numbered(
                    """
                    SELECT r.id, coalesce(r.title, s.path, ''), r.recorded_at, s.title, s.transcript, s.path
                    FROM recording_search s JOIN recordings r ON r.id = s.recording_id
                    WHERE s.lexemes @@ $2::tsquery AND \(SQLiteCatalog.recordingVisible(to: "$1::bigint"))
                    ORDER BY ts_rank(s.lexemes, $2::tsquery) DESC, r.id LIMIT $3
                    """,
                    [userID, query, wanted])
            ).map { row in
                let (id, title, recordedAt, searchedTitle, transcript, path) = try row.decode(
                    (Int64, String, Int64?, String, String, String).self)
                return SearchHit(
                    kind: "recording", id: id, title: title,
                    snippet: SearchSnippet.snippet(columns: [searchedTitle, transcript, path], queryWords: words),
                    start: recordedAt.map(Self.date(milliseconds:)))
            }
            return meetings + recordings
        }
        // Ranks of the two tables do not compare: meetings come first, then recordings.
        return Array(hits.dropFirst(offset).prefix(limit))
    }
}
