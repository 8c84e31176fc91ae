import CSQLiteSettings
import Foundation
import GRDB
import StenoCatalog
import StenoCore

/// The catalog in one SQLite file, through GRDB: a `DatabasePool` in WAL mode, so reads run
/// while a write is in progress.
///
/// Opening applies the migrations of `Schema/migrations/` in order and refuses a database
/// written by a newer Steno. All methods are safe to call from any task.
public struct SQLiteCatalog: CatalogStore, CatalogRowSource {
    /// The connection pool every method goes through.
    let writer: any DatabaseWriter
    /// The database file.
    public let path: String
    /// Row counts, recomputed only after a commit changed something.
    let statisticsCache: StatisticsCache
    /// Members' visible meetings and recordings, until a commit changes the catalog.
    let visibleSets: VisibleSetCache<UInt64>
    /// The migrations this binary knows, in order.
    let knownMigrations: [String]

    /// Opens (creating if needed) the catalog at `path` and brings its schema up to date.
    ///
    /// - Throws: `StoreError.schemaTooNew` for a database written by a newer Steno,
    ///   ``CatalogDamaged`` for a file whose pages fail `PRAGMA quick_check`.
    public static func open(path: String) async throws -> SQLiteCatalog {
        _ = processSettings
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.foreignKeysEnabled = true
        configuration.label = "steno.catalog"
        configuration.prepareDatabase { db in
            // NORMAL is durable in WAL mode across process crashes (only an OS crash may lose
            // the last transactions), and much faster than FULL.
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // 32 MB of page cache per connection instead of SQLite's 2 MB: linking and
            // revalidation touch events, links and attendees all over a large catalog, and
            // with the default most of their time went to re-reading pages from the kernel.
            try db.execute(sql: "PRAGMA cache_size = -32768")
            // Batch writes stage their rows in small temporary tables: keep them off the disk.
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
            db.add(function: NameFolding.function)
            // Searches of one word rank with it (see SQLiteCatalog+Meetings.swift's search).
            let registered = steno_sqlite_register_term_rank(UnsafeMutableRawPointer(db.sqliteConnection))
            guard registered == 0 else {
                throw DatabaseError(resultCode: ResultCode(rawValue: registered), message: "cannot register the search ranking function")
            }
            // Members' searches test matches against their held ids with it (SQLiteCatalog+HeldIDs).
            let held = steno_sqlite_register_held(UnsafeMutableRawPointer(db.sqliteConnection))
            guard held == 0 else {
                throw DatabaseError(resultCode: ResultCode(rawValue: held), message: "cannot register the held ids function")
            }
        }
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        let pool: DatabasePool
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
        } catch let error as DatabaseError {
            // Opening reads the header and sets the journal mode: a cut file fails here already.
            throw CatalogIntegrity.damage(error, path: path) ?? error
        }
        try await CatalogIntegrity.check(pool, path: path)
        let migrator = SchemaMigrations.migrator()
        let known = migrator.migrations
        try await pool.write { db in
            if try migrator.hasBeenSuperseded(db) {
                // GRDB's applied list hides unknown identifiers; read the table itself to name them.
                let recorded = try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier")
                throw StoreError.schemaTooNew(databaseMigrations: recorded, knownMigrations: known)
            }
        }
        try migrator.migrate(pool)
        let cache = StatisticsCache()
        pool.add(transactionObserver: cache.observer, extent: .databaseLifetime)
        return SQLiteCatalog(
            writer: pool, path: path, statisticsCache: cache, visibleSets: VisibleSetCache(), knownMigrations: known)
    }
}

extension SQLiteCatalog {
    /// Applied once, before the first connection initialises SQLite: no memory statistics.
    /// Counting them took a global mutex around every allocation and free inside SQLite,
    /// about a twentieth of a mirror write; nothing reads them.
    private static let processSettings: Void = {
        _ = steno_sqlite_disable_memory_statistics()
    }()

    /// Milliseconds since 1970 for a date, the schema's representation of instants.
    static func milliseconds(_ date: Date) -> Int64 { CatalogTime.milliseconds(date) }

    /// The date for a schema instant.
    static func date(milliseconds: Int64) -> Date { CatalogTime.date(milliseconds: milliseconds) }
}
