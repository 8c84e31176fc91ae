/// A catalog whose tables can be read out whole, row by row: the source of
/// `stenod copy-catalog`, which moves an embedded SQLite catalog to a shared PostgreSQL one.
package protocol CatalogRowSource: Sendable {
    /// The columns of `table`, in order, and those of its primary key.
    func layout(of table: String) async throws -> (columns: [String], primaryKey: [String])
    /// Up to `limit` rows of `table` after `cursor` in primary-key order: each row holds
    /// `columns` followed by the primary key's values (the next page's cursor is the last
    /// row's key).
    func exportPage(of table: String, columns: [String], primaryKey: [String], after cursor: [CatalogValue]?, limit: Int) async throws
        -> [[CatalogValue]]
    /// How many rows `table` holds.
    func rowCount(of table: String) async throws -> Int64
}
