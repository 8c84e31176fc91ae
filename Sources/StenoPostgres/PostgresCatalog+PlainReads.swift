import PostgresNIO
import StenoCatalog
import StenoCore

/// Plain statements read straight from the server, for `steno-bench query`'s floor on
/// PostgreSQL: the same fields of the same rows a listing answered, each read by one indexed
/// statement. `sql` is the caller's fixed text, never user input; its parameters are numbered.
extension PostgresCatalog {
    /// How many rows `sql` returns, `$1` bound to `ids` (a `bigint[]`).
    package func countRows(_ sql: String, ids: [Int64]) async throws -> Int {
        try await rows(.numbered(sql, [ids])).count
    }

    /// How many rows `sql` returns, `$1` bound to `id`.
    package func countRows(_ sql: String, id: Int64) async throws -> Int {
        try await rows(.numbered(sql, [id])).count
    }

    /// How many rows `sql` returns, `$1` bound to the `tsquery` a search for `text` asks (every
    /// word as a prefix), `$2` to `limit` and, given ids `among`, `$3` to them (a `bigint[]`);
    /// none when the text has no words.
    package func countRows(_ sql: String, searching text: String, limit: Int, among ids: [Int64]? = nil) async throws -> Int {
        guard let words = try SearchTerms.forStore(text)?.words else { return 0 }
        let query = SearchLexemes.prefixQuery(words)
        guard !query.isEmpty else { return 0 }
        return try await rows(.numbered(sql, [query, Int64(limit)] + (ids.map { [$0] } ?? []))).count
    }
}
