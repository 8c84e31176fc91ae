import Foundation
import PostgresNIO
import StenoCatalog

/// The migrations of `Schema/postgres/`, embedded at build time, and how they are applied.
///
/// Each file runs in its own transaction and is recorded in `steno_migrations` under its file
/// name without extension (`0001_catalog`). A session advisory lock is held while migrating, so
/// when several daemons start together one migrates and the others wait, then find nothing to do.
enum PostgresMigrations {
    /// The key of the advisory lock (any constant the catalog uses for nothing else).
    static let lockKey: Int64 = 0x5374_656E_6F4D_6967  // "StenoMig"

    /// The embedded migration files, sorted by name.
    static var files: [(identifier: String, sql: String)] {
        EmbeddedSchema.files
            .filter { $0.key.hasPrefix("postgres/") && $0.key.hasSuffix(".sql") }
            .map { (identifier: String($0.key.dropFirst("postgres/".count).dropLast(".sql".count)), sql: $0.value) }
            .sorted { $0.identifier < $1.identifier }
    }

    /// The schema version of a migration identifier: its leading number (`0001_catalog` → 1).
    static func version(of identifier: String) -> Int {
        Int(identifier.prefix { $0.isNumber }) ?? 0
    }

    /// Applies the migrations the database lacks, or throws `StoreError.schemaTooNew`.
    static func apply(to catalog: PostgresCatalog) async throws {
        let known = files
        do {
            try await catalog.withLeasedConnection { connection in
                let logger = catalog.logger
                _ = try await connection.query("SELECT pg_advisory_lock(\(lockKey))", logger: logger).collect()
                do {
                    _ = try await connection.query(
                        """
                        CREATE TABLE IF NOT EXISTS steno_migrations (
                            identifier  TEXT    PRIMARY KEY,
                            applied_at  BIGINT  NOT NULL
                        )
                        """, logger: logger
                    ).collect()
                    var applied: [String] = []
                    for row in try await connection.query("SELECT identifier FROM steno_migrations ORDER BY identifier", logger: logger).collect() {
                        applied.append(try row.decode(String.self))
                    }
                    let knownIdentifiers = known.map(\.identifier)
                    if applied.contains(where: { !knownIdentifiers.contains($0) }) {
                        throw StoreError.schemaTooNew(databaseMigrations: applied, knownMigrations: knownIdentifiers)
                    }
                    for file in known where !applied.contains(file.identifier) {
                        try await connection.withTransaction(logger: logger) { connection in
                            // The extended protocol takes one statement at a time.
                            for statement in SQLScript.statements(file.sql) {
                                _ = try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger).collect()
                            }
                            let now = PostgresCatalog.milliseconds(Date())
                            _ = try await connection.query(
                                "INSERT INTO steno_migrations (identifier, applied_at) VALUES (\(file.identifier), \(now))", logger: logger
                            ).collect()
                        }
                        catalog.logger.notice("applied migration", metadata: ["migration": "\(file.identifier)"])
                    }
                } catch {
                    _ = try? await connection.query("SELECT pg_advisory_unlock(\(lockKey))", logger: logger).collect()
                    throw error
                }
                _ = try await connection.query("SELECT pg_advisory_unlock(\(lockKey))", logger: logger).collect()
            }
        } catch let error as PostgresTransactionError {
            throw catalog.mapped(error.closureError ?? error.commitError ?? error.beginError ?? error)
        } catch {
            throw catalog.mapped(error)
        }
    }
}
