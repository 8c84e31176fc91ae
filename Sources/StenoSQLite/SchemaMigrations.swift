import GRDB
import StenoCatalog

/// The migrations of `Schema/migrations/`, embedded at build time, as a GRDB migrator.
///
/// Each file runs in its own transaction and is recorded in `grdb_migrations` under its
/// file name without extension (`0001_catalog`).
enum SchemaMigrations {
    /// The embedded migration files, sorted by name.
    static var files: [(identifier: String, sql: String)] {
        EmbeddedSchema.files
            .filter { $0.key.hasPrefix("migrations/") && $0.key.hasSuffix(".sql") }
            .map { (identifier: String($0.key.dropFirst("migrations/".count).dropLast(".sql".count)), sql: $0.value) }
            .sorted { $0.identifier < $1.identifier }
    }

    /// A migrator with every embedded migration registered in order.
    static func migrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for file in files {
            let sql = file.sql
            migrator.registerMigration(file.identifier) { db in
                try db.execute(sql: sql)
            }
        }
        return migrator
    }

    /// The schema version of a migration identifier: its leading number (`0001_catalog` → 1).
    static func version(of identifier: String) -> Int {
        Int(identifier.prefix { $0.isNumber }) ?? 0
    }
}
