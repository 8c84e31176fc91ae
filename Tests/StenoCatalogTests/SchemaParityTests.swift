import Foundation
import GRDB
import PostgresNIO
import StenoCore
import Testing

@testable import StenoCatalog
@testable import StenoPostgres
@testable import StenoSQLite

/// Both catalogs hold the same schema: the same tables with the same columns, each nullable or
/// not alike, and the same indexes over the same keys, read from the databases themselves
/// (`PRAGMA table_info` / `index_list` and `information_schema` / `pg_indexes`), so a migration
/// written for one dialect and forgotten for the other fails here. What each dialect keeps on
/// its own (its full-text index, its bookkeeping) is named below with the reason.
@Suite(
    "One schema in both dialects",
    .enabled(if: StoreBackend.postgresAvailable, "PostgreSQL is not installed (apt-get install postgresql)"))
struct SchemaParityTests {
    /// A table as both dialects describe it.
    struct Table: Equatable, CustomStringConvertible {
        /// Column name → whether it may hold NULL.
        var columns: [String: Bool]
        /// Index name → its key, normalised (`owner_id, recorded_at`; expressions as written).
        var indexes: [String: String]

        var description: String {
            "columns: " + columns.sorted { $0.key < $1.key }.map { "\($0.key)\($0.value ? "?" : "")" }.joined(separator: ", ")
                + "; indexes: " + indexes.sorted { $0.key < $1.key }.map { "\($0.key)(\($0.value))" }.joined(separator: "; ")
        }
    }

    /// Tables one dialect keeps for itself: SQLite's FTS5 tables and their shadow tables
    /// (PostgreSQL searches with tsvector and trigram indexes), and each dialect's record of the
    /// migrations applied.
    static func isDialectsOwn(_ table: String) -> Bool {
        table.hasPrefix("sqlite_") || table == "grdb_migrations" || table == "steno_migrations"
            || table.hasPrefix("recording_search") || table.hasPrefix("meeting_search") || table.hasPrefix("meeting_titles")
    }

    static func sqliteSchema() async throws -> [String: Table] {
        let temporary = TemporaryCatalog()
        let catalog = try await temporary.open()
        return try await catalog.writer.read { db in
            var tables: [String: Table] = [:]
            let names = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            for name in names where !isDialectsOwn(name) {
                var table = Table(columns: [:], indexes: [:])
                for column in try Row.fetchAll(db, sql: "SELECT name, \"notnull\", pk FROM pragma_table_info(?)", arguments: [name]) {
                    let isKey: Int = column["pk"]
                    let notNull: Bool = column["notnull"]
                    table.columns[column["name"]] = !(notNull || isKey > 0)
                }
                for index in try Row.fetchAll(db, sql: "SELECT name, origin FROM pragma_index_list(?)", arguments: [name]) {
                    let indexName: String = index["name"]
                    let origin: String = index["origin"]
                    guard origin == "c" else { continue }  // Keys and UNIQUE constraints are compared as columns' constraints elsewhere.
                    let sql = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?", arguments: [indexName])
                    table.indexes[indexName] = normalisedKey(ofIndexSQL: sql ?? "")
                }
                tables[name] = table
            }
            return tables
        }
    }

    static func postgresSchema() async throws -> [String: Table] {
        let opened = try await StoreBackend.postgres.open()
        let catalog = try #require(opened.store as? PostgresCatalog)
        var tables: [String: Table] = [:]
        let columns = try await catalog.rows(
            "SELECT table_name::text, column_name::text, is_nullable::text FROM information_schema.columns WHERE table_schema = current_schema()")
        for row in columns {
            let (table, column, nullable) = try row.decode((String, String, String).self)
            guard !isDialectsOwn(table) else { continue }
            tables[table, default: Table(columns: [:], indexes: [:])].columns[column] = nullable == "YES"
        }
        let indexes = try await catalog.rows(
            """
            SELECT i.tablename::text, i.indexname::text, i.indexdef FROM pg_indexes i
            WHERE i.schemaname = current_schema()
              AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)
            """)
        for row in indexes {
            let (table, index, definition) = try row.decode((String, String, String).self)
            guard !isDialectsOwn(table) else { continue }
            tables[table, default: Table(columns: [:], indexes: [:])].indexes[index] = normalisedKey(ofIndexSQL: definition)
        }
        withExtendedLifetime(opened) {}
        return tables
    }

    /// The key of `CREATE [UNIQUE] INDEX name ON table [USING btree] (key) [WHERE …]` in one
    /// spelling for both dialects: lower case, without spaces, parentheses or casts
    /// (PostgreSQL writes `(deleted_at IS NULL)`, `(0)::double precision`), `= ANY (ARRAY[…])`
    /// read as `IN (…)`, and without a last key column `id`, which every SQLite index holds
    /// anyway (its rowid) and PostgreSQL needs spelled; `UNIQUE` and the condition kept.
    static func normalisedKey(ofIndexSQL sql: String) -> String {
        var text = sql.lowercased().replacingOccurrences(of: "using btree", with: "").replacingOccurrences(of: "public.", with: "")
        let unique = text.hasPrefix("create unique") ? "unique " : ""
        guard let on = text.range(of: " on ") else { return text }
        text = String(text[on.upperBound...]).filter { !$0.isWhitespace }
        guard let open = text.firstIndex(of: "(") else { return text }
        text = String(text[open...])
        text = text.replacingOccurrences(of: "=any(array[", with: "in(").replacingOccurrences(of: "])", with: ")")
        text = text.replacingOccurrences(of: #"::[a-z]+"#, with: "", options: .regularExpression)
        let parts = text.components(separatedBy: "where")
        var key = parts[0].filter { $0 != "(" && $0 != ")" }
        if key.hasSuffix(",id") { key.removeLast(3) }
        let condition = parts.dropFirst().joined(separator: "where").filter { $0 != "(" && $0 != ")" }
        return unique + key + (condition.isEmpty ? "" : " where " + condition)
    }

    /// Where the dialects differ on purpose, each index or column named with why: compared
    /// apart from these, everything else must be alike.
    static let differences: [(table: String, index: String?, column: String?, why: String)] = [
        ("meetings", "meetings_start", nil,
         "the listing order's nulls: PostgreSQL sorts NULL last ascending, so its index runs (starts_at DESC NULLS LAST, id DESC), "
            + "the ascending listing read backwards; SQLite's holds the titles too (0024), PostgreSQL has a trigram index instead"),
        ("meetings", "meetings_title_trigrams", nil, "`--title` on PostgreSQL (pg_trgm); SQLite has its FTS5 trigram table meeting_titles"),
        ("meeting_people", "meeting_people_walk", nil, "the listing order's nulls, as meetings_start"),
        ("user_emails", nil, "position", "PostgreSQL keeps the order addresses were given in a column; SQLite by rowid"),
    ]

    @Test func bothDialectsHoldTheSameTablesColumnsAndIndexes() async throws {
        // Every difference allowed is still there: one that went must leave the list.
        let sqlite = try await Self.sqliteSchema()
        let postgres = try await Self.postgresSchema()
        for difference in Self.differences {
            let held = [sqlite[difference.table], postgres[difference.table]].compactMap { $0 }
            let present = held.contains { table in
                difference.index.map { table.indexes[$0] != nil } ?? difference.column.map { table.columns[$0] != nil } ?? false
            }
            #expect(present, "\(difference.table) \(difference.index ?? difference.column ?? ""): listed as a difference but in neither dialect")
        }
        #expect(Set(sqlite.keys) == Set(postgres.keys), "tables only in SQLite: \(Set(sqlite.keys).subtracting(postgres.keys).sorted()); only in PostgreSQL: \(Set(postgres.keys).subtracting(sqlite.keys).sorted())")
        func comparable(_ table: Table?, _ name: String) -> Table? {
            guard var table else { return nil }
            for difference in Self.differences where difference.table == name {
                if let index = difference.index { table.indexes[index] = nil }
                if let column = difference.column { table.columns[column] = nil }
            }
            return table
        }
        for name in Set(sqlite.keys).intersection(postgres.keys).sorted() {
            guard let lite = comparable(sqlite[name], name), let pg = comparable(postgres[name], name) else { continue }
            #expect(lite.columns == pg.columns, "\(name) columns — SQLite: \(lite); PostgreSQL: \(pg)")
            #expect(lite.indexes == pg.indexes, "\(name) indexes — SQLite: \(lite.indexes.sorted { $0.key < $1.key }); PostgreSQL: \(pg.indexes.sorted { $0.key < $1.key })")
        }
    }
}
