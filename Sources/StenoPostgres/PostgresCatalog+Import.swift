import Foundation
import PostgresNIO
import StenoCatalog

/// What `stenod copy-catalog` copied: rows per table, in copy order.
public struct CatalogCopyReport: Sendable, Hashable {
    public var tables: [(name: String, rows: Int64)]

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.tables.map(\.name) == rhs.tables.map(\.name) && lhs.tables.map(\.rows) == rhs.tables.map(\.rows) }
    public func hash(into hasher: inout Hasher) {
        for table in tables {
            hasher.combine(table.name)
            hasher.combine(table.rows)
        }
    }
}

/// Filling an empty PostgreSQL catalog from another catalog, table by table, in one transaction:
/// a copy that fails leaves the target as empty as it was.
extension PostgresCatalog {
    /// The tables a copy fills, referenced tables first. Search indexes are rebuilt from the
    /// copied rows instead of copied (SQLite's FTS5 tables have no counterpart here). The
    /// history spans come along so that the copy does not ask providers for them again.
    package static let copiedTables = [
        "users", "user_emails", "user_uids", "calendar_accounts", "calendars", "calendar_history_spans", "calendar_resources", "meetings", "events",
        "event_attendees", "recordings", "recording_paths", "links", "link_attendees", "link_history", "jobs", "devices",
        "device_pairings",
    ]

    /// Copies every table of `source` into this catalog, which must hold nothing yet; then sets
    /// the identity counters past the copied ids, carries the change clock over, rebuilds the
    /// search indexes and checks every table's row count against the source.
    ///
    /// - Parameter progress: called after each table with its name and the rows copied.
    /// - Throws: `StoreError.failedPrecondition` when this catalog is not empty or a count differs.
    package func copy(from source: some CatalogRowSource, progress: @Sendable (String, Int64) -> Void) async throws -> CatalogCopyReport {
        try await transaction { tx in
            for table in Self.copiedTables {
                let rows = try await tx.row("SELECT count(*) FROM \(unescaped: table)")?.decode(Int64.self) ?? 0
                guard rows == 0 else {
                    throw StoreError.failedPrecondition(
                        "the PostgreSQL catalog \(settings.redactedURL) is not empty (its \(table) table holds \(rows) row(s)): copy into a new, empty database")
                }
            }
            var report = CatalogCopyReport(tables: [])
            for table in Self.copiedTables {
                let copied = try await Self.copyTable(table, from: source, in: tx)
                report.tables.append((table, copied))
                progress(table, copied)
            }
            try await Self.carryChangeClock(from: source, in: tx)
            for table in Self.copiedTables {
                // Identity columns continue after the highest copied id.
                let hasIdentity = try await tx.row(
                    "SELECT 1 FROM information_schema.columns WHERE table_name = \(table) AND column_name = 'id' AND is_identity = 'YES'") != nil
                if hasIdentity {
                    try await tx.execute(
                        "SELECT setval(pg_get_serial_sequence(\(table), 'id'), coalesce((SELECT max(id) FROM \(unescaped: table)), 0) + 1, false)")
                }
            }
            // The tables were empty when the planner last looked: without statistics the search
            // rebuild's reads were planned as for empty tables.
            try await tx.execute("ANALYZE")
            try await Self.rebuildSearch(in: tx)
            for (table, copied) in report.tables {
                let expected = try await source.rowCount(of: table)
                guard copied == expected else {
                    throw StoreError.failedPrecondition("\(table): \(copied) row(s) copied but the source holds \(expected); nothing was kept")
                }
            }
            return report
        }
    }

    /// Rows per batch: PostgreSQL takes at most 65,535 parameters per statement.
    static func batchSize(columns: Int) -> Int { max(1, min(1_000, 65_535 / max(1, columns))) }

    private static func copyTable(_ table: String, from source: some CatalogRowSource, in tx: PostgresTransaction) async throws -> Int64 {
        let layout = try await source.layout(of: table)
        var types: [String: String] = [:]
        for row in try await tx.rows("SELECT column_name, udt_name FROM information_schema.columns WHERE table_name = \(table)") {
            let (name, type) = try row.decode((String, String).self)
            types[name] = type
        }
        // The source's columns under their names here. A `position` column that SQLite lacks
        // stands for SQLite's insertion order (its rowid): a user's emails keep their order.
        var sourceColumns = layout.columns
        var targetColumns = layout.columns
        if types["position"] != nil, !layout.columns.contains("position") {
            sourceColumns.append("rowid")
            targetColumns.append("position")
        }
        // Columns both sides have (extra PostgreSQL columns keep their defaults).
        let columns = targetColumns.filter { types[$0] != nil }
        let batch = batchSize(columns: columns.count)
        var cursor: [CatalogValue]?
        var copied: Int64 = 0
        while true {
            let page = try await source.exportPage(
                of: table, columns: sourceColumns, primaryKey: layout.primaryKey, after: cursor, limit: batch)
            guard let last = page.last else { break }
            cursor = Array(last.suffix(layout.primaryKey.count))
            var binds = PostgresBindings(capacity: page.count * columns.count)
            var tuples: [String] = []
            for row in page {
                var placeholders: [String] = []
                for (index, name) in targetColumns.enumerated() {
                    guard let type = types[name] else { continue }
                    try bind(row[index], as: type, column: "\(table).\(name)", into: &binds)
                    placeholders.append("$\(binds.count)")
                }
                tuples.append("(" + placeholders.joined(separator: ", ") + ")")
            }
            let quoted = columns.map { "\"\($0)\"" }.joined(separator: ", ")
            try await tx.execute(
                PostgresQuery(unsafeSQL: "INSERT INTO \(table) (\(quoted)) VALUES \(tuples.joined(separator: ", "))", binds: binds))
            copied += Int64(page.count)
        }
        return copied
    }

    /// Binds a SQLite value as the PostgreSQL column's type wants it.
    private static func bind(_ value: CatalogValue, as type: String, column: String, into binds: inout PostgresBindings) throws {
        func refuse() -> StoreError { .invalid("\(column): the value \(value) does not fit the column's type \(type)") }
        switch (value, type) {
        case (.null, _):
            binds.appendNull()
        case (.integer(let number), "int8"), (.integer(let number), "int4"):
            binds.append(number)
        case (.integer(let number), "bool"):
            binds.append(number != 0)
        case (.integer(let number), "float8"):
            binds.append(Double(number))
        case (.real(let number), "float8"):
            binds.append(number)
        case (.text(let text), "text"), (.text(let text), "citext"):
            binds.append(text)
        case (.integer(let number), "text"), (.integer(let number), "citext"):
            binds.append(String(number))
        case (.blob(let data), "bytea"):
            try binds.append(data)
        case (.text(let text), "bytea"):
            try binds.append(Data(text.utf8))
        case (.blob(let data), "text"):
            guard let text = String(data: data, encoding: .utf8) else { throw refuse() }
            binds.append(text)
        default:
            throw refuse()
        }
    }

    private static func carryChangeClock(from source: some CatalogRowSource, in tx: PostgresTransaction) async throws {
        let layout = try await source.layout(of: "change_clock")
        guard let index = layout.columns.firstIndex(of: "last"),
            let row = try await source.exportPage(of: "change_clock", columns: layout.columns, primaryKey: layout.primaryKey, after: nil, limit: 1).first,
            case .integer(let last) = row[index]
        else { return }
        try await tx.execute("UPDATE change_clock SET last = \(last) WHERE id = 1")
    }

    /// Fills both search tables from the copied meetings, attendees, recordings and paths.
    private static func rebuildSearch(in tx: PostgresTransaction) async throws {
        // The same indexing the mirror and ingest keep up, a thousand rows at a time.
        let meetingIDs = try await tx.rows("SELECT id FROM meetings ORDER BY id").map { try $0.decode(Int64.self) }
        let writer = PostgresMirrorWriter(tx: tx, now: milliseconds(Date()))
        for start in stride(from: 0, to: meetingIDs.count, by: 1_000) {
            try await writer.refreshSearch(meetingIDs: Set(meetingIDs[start..<min(start + 1_000, meetingIDs.count)]))
        }
        let recordingIDs = try await tx.rows("SELECT id FROM recordings ORDER BY id").map { try $0.decode(Int64.self) }
        for start in stride(from: 0, to: recordingIDs.count, by: 1_000) {
            try await refreshRecordingSearch(tx, ids: Array(recordingIDs[start..<min(start + 1_000, recordingIDs.count)]))
        }
    }
}

extension PostgresCatalog {
    /// Gathers the planner's statistics of every table: right after a bulk copy it has none,
    /// and plans made without them read tables whole (`steno-bench query --postgres`).
    package func analyze() async throws {
        try await execute("ANALYZE")
    }
}
