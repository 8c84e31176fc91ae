import Foundation
import PostgresNIO
import StenoCatalog

/// What `system.status` reports of the catalog, and backups, which are the server's business.
extension PostgresCatalog: CatalogStatusStore, BackupStore {
    public func statistics() async throws -> CatalogStatistics {
        let tables = CatalogStatistics.countedTables
        // One statement, so the counts are of one snapshot. The table names are constants.
        let counts = tables.map { "(SELECT count(*) FROM \($0))" }.joined(separator: ", ")
        guard
            let row = try await row(
                PostgresQuery(
                    unsafeSQL: """
                        SELECT \(counts),
                            (SELECT count(*) FROM jobs WHERE state IN ('queued', 'failed', 'running')),
                            (SELECT array_agg(identifier) FROM steno_migrations)
                        """))
        else { throw StoreError.failedPrecondition("the catalog statistics query returned no row") }
        let cells = row.makeRandomAccess()
        var byTable: [String: Int64] = [:]
        for (index, table) in tables.enumerated() { byTable[table] = try cells[index].decode(Int64.self) }
        let queueDepth = try cells[tables.count].decode(Int64.self)
        let applied = try cells[tables.count + 1].decode([String]?.self) ?? []
        let version = applied.filter(knownMigrations.contains).map(PostgresMigrations.version(of:)).max() ?? 0
        return CatalogStatistics(schemaVersion: version, location: settings.redactedURL, counts: byTable, queueDepth: queueDepth)
    }

    /// Refused: a PostgreSQL catalog is backed up by the server's own tools, which copy it
    /// consistently while every daemon keeps writing.
    ///
    /// - Throws: `StoreError.failedPrecondition` naming `pg_dump`.
    public func backup(to path: String) async throws -> Int64 {
        throw StoreError.failedPrecondition(
            "the catalog is on PostgreSQL (\(settings.redactedURL)): back it up with pg_dump "
                + "(pg_dump --format=custom --file=steno.dump \(settings.database)), not with steno; nothing was written to \(path)")
    }
}
