import Foundation
import GRDB
import PostgresNIO
@testable import StenoCatalog
@testable import StenoPostgres
@testable import StenoSQLite

/// Raw reads for the few checks no store method can make (how a value is stored, what the
/// search index holds). The SQL must mean the same on both backends.
extension OpenedCatalog {
    /// The rows of `sql`, every column read as text (NULL as nil): cast other columns with
    /// `CAST(… AS TEXT)`, which both backends understand.
    func rows(_ sql: String) async throws -> [[String?]] {
        switch store {
        case let sqlite as SQLiteCatalog:
            return try await sqlite.writer.read { db in
                try Row.fetchAll(db, sql: sql).map { row in row.databaseValues.map { String.fromDatabaseValue($0) } }
            }
        case let postgres as PostgresCatalog:
            return try await postgres.rows(PostgresQuery(unsafeSQL: sql)).map { row in
                try row.makeRandomAccess().map { cell in try cell.decode(String?.self) }
            }
        default:
            throw StoreError.invalid("no raw reads for \(type(of: store))")
        }
    }

    /// The first column of `sql`'s rows.
    func column(_ sql: String) async throws -> [String?] { try await rows(sql).map { $0.first ?? nil } }
}
