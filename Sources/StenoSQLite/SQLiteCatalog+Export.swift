import Foundation
import GRDB
import StenoCatalog

/// Reading whole tables out of the catalog, for `stenod copy-catalog`.
extension SQLiteCatalog {
    /// The columns of `table`, in order, and those of its primary key (the rowid's alias or
    /// the declared key of a WITHOUT ROWID table).
    package func layout(of table: String) async throws -> (columns: [String], primaryKey: [String]) {
        try await writer.read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT name, pk FROM pragma_table_info(?)", arguments: [table])
            guard !rows.isEmpty else { throw StoreError.notFound(entity: "table", reference: table) }
            let columns: [String] = rows.map { $0["name"] }
            let key = rows.filter { ($0["pk"] as Int) > 0 }.sorted { ($0["pk"] as Int) < ($1["pk"] as Int) }.map { $0["name"] as String }
            return (columns, key.isEmpty ? ["rowid"] : key)
        }
    }

    /// The rows of `table` after `cursor` (their primary key values; nil for the first page), in
    /// primary-key order, at most `limit`. Keyset pages: each page is one indexed range, however
    /// large the table.
    package func exportPage(
        of table: String, columns: [String], primaryKey: [String], after cursor: [CatalogValue]?, limit: Int
    ) async throws -> [[CatalogValue]] {
        let quoted = columns.map { "\"\($0)\"" }.joined(separator: ", ")
        let key = primaryKey.map { $0 == "rowid" ? "rowid" : "\"\($0)\"" }
        var sql = "SELECT \(quoted), \(key.joined(separator: ", ")) FROM \"\(table)\""
        var arguments = StatementArguments()
        if let cursor {
            sql += " WHERE (\(key.joined(separator: ", "))) > (\(key.map { _ in "?" }.joined(separator: ", ")))"
            arguments = StatementArguments(cursor.map(\.databaseValue))
        }
        sql += " ORDER BY \(key.joined(separator: ", ")) LIMIT \(limit)"
        return try await writer.read { [arguments, sql] db in
            try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                (0..<row.count).map { CatalogValue(row[$0] as DatabaseValue) }
            }
        }
    }

    /// Rows per table, for checking a copy.
    package func rowCount(of table: String) async throws -> Int64 {
        try await writer.read { db in try Int64.fetchOne(db, sql: "SELECT count(*) FROM \"\(table)\"") ?? 0 }
    }
}

extension CatalogValue {
    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let number): self = .integer(number)
        case .double(let number): self = .real(number)
        case .string(let text): self = .text(text)
        case .blob(let data): self = .blob(data)
        }
    }

    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let number): number.databaseValue
        case .real(let number): number.databaseValue
        case .text(let text): text.databaseValue
        case .blob(let data): data.databaseValue
        }
    }
}
