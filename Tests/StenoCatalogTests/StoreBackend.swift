import Foundation
import GRDB
import Logging
import StenoCatalog
import StenoPostgres
import StenoTesting
import Testing

/// The catalogs the store tests run against: every parameterised test runs once per backend,
/// from the same code, so both implement the same semantics.
///
/// PostgreSQL runs in a private cluster of this test process (``PostgresCluster``), each test
/// on a fresh database. Where PostgreSQL is not installed its cases are skipped with the reason;
/// under `CI=true` they fail instead.
enum StoreBackend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue == "sqlite" ? "SQLite" : "PostgreSQL" }

    /// Whether this backend's cases run here (and the reason when not).
    static var postgresAvailable: Bool { TestRequirement.runs(when: PostgresCluster.isInstalled) }

    /// The backends whose cases run on this machine.
    static var available: [StoreBackend] { postgresAvailable ? allCases : [.sqlite] }

    /// Opens a fresh, empty catalog of this kind; it is removed when the returned value goes.
    func open() async throws -> OpenedCatalog {
        switch self {
        case .sqlite:
            let temporary = TemporaryCatalog()
            return OpenedCatalog(store: try await temporary.open(), keepAlive: temporary) {
                // A VACUUM INTO copy (every page that holds a row, none that only once did), and
                // the terms of the full-text indexes, which their pages store prefix-compressed.
                let copy = temporary.folder + "/dump-\(UUID().uuidString).sqlite"
                let terms = try await DatabaseQueue(path: temporary.path).writeWithoutTransaction { db in
                    try db.execute(sql: "VACUUM INTO ?", arguments: [copy])
                    return try ["meeting_search", "recording_search", "meeting_titles"].map { index in
                        try db.execute(sql: "CREATE VIRTUAL TABLE temp.\(index)_terms USING fts5vocab(main, '\(index)', 'row')")
                        return try String.fetchAll(db, sql: "SELECT term FROM temp.\(index)_terms").joined(separator: "\n")
                    }.joined(separator: "\n")
                }
                defer { try? FileManager.default.removeItem(atPath: copy) }
                return String(decoding: try Data(contentsOf: URL(fileURLWithPath: copy)), as: UTF8.self) + "\n" + terms
            }
        case .postgres:
            let cluster = try await PostgresCluster.shared()
            let database = try await cluster.createDatabase()
            let settings = try PostgresSettings.parse(url: cluster.socketURL(database: database))
            let catalog = try await PostgresCatalog.open(settings, logger: Logger(label: "steno.test.postgres"))
            return OpenedCatalog(store: catalog, keepAlive: PostgresCatalogCloser(catalog)) {
                try await cluster.dump(database: database)
            }
        }
    }
}

/// A catalog opened for one test, with whatever must live as long as it (its folder, its pool).
struct OpenedCatalog: Sendable {
    let store: any CatalogStore & IngestStore
    let keepAlive: any Sendable
    /// Everything the catalog holds, as text to search: a `VACUUM INTO` copy of the SQLite
    /// file, or a `pg_dump` of the PostgreSQL database.
    let dump: @Sendable () async throws -> String
}

/// Closes the pool when the test is done with the catalog.
final class PostgresCatalogCloser: Sendable {
    let catalog: PostgresCatalog
    init(_ catalog: PostgresCatalog) { self.catalog = catalog }
    deinit { catalog.close() }
}
