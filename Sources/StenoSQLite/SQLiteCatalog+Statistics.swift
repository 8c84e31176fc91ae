import Foundation
import GRDB
import StenoCatalog
import Synchronization

extension SQLiteCatalog {
    public func statistics() async throws -> CatalogStatistics {
        let generation = statisticsCache.generation
        if let cached = statisticsCache.value(ifGeneration: generation) { return cached }
        let known = knownMigrations
        let path = self.path
        let statistics = try await writer.read { db -> CatalogStatistics in
            var counts: [String: Int64] = [:]
            for table in CatalogStatistics.countedTables {
                counts[table] = try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") ?? 0
            }
            let queueDepth = try Int64.fetchOne(
                db, sql: "SELECT COUNT(*) FROM jobs WHERE state IN ('queued', 'failed', 'running')") ?? 0
            let applied = try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
                .filter { known.contains($0) }
            let version = applied.map(SchemaMigrations.version(of:)).max() ?? 0
            return CatalogStatistics(schemaVersion: version, location: path, counts: counts, queueDepth: queueDepth)
        }
        statisticsCache.store(statistics, generation: generation)
        return statistics
    }
}

/// Caches the catalog statistics until a transaction changes the database.
///
/// A commit that changed rows bumps the generation; a value computed from a read that began
/// at generation *g* is served only while the generation is still *g*, so a commit racing the
/// computation makes the next call recompute rather than serve stale counts.
final class StatisticsCache: Sendable {
    private struct Entry {
        var value: CatalogStatistics?
        var generation: UInt64 = .max
    }

    private let entry = Mutex(Entry())
    let observer = ChangeObserver()

    /// Bumped by every commit that changed a row.
    var generation: UInt64 { observer.generation.load(ordering: .acquiring) }

    func value(ifGeneration generation: UInt64) -> CatalogStatistics? {
        entry.withLock { $0.generation == generation ? $0.value : nil }
    }

    func store(_ value: CatalogStatistics, generation: UInt64) {
        entry.withLock { $0 = Entry(value: value, generation: generation) }
    }
}

/// Counts the transactions that changed any row, cheaply: it stops listening after the first
/// change of each transaction.
final class ChangeObserver: TransactionObserver, @unchecked Sendable {
    /// Committed transactions that changed something.
    let generation = Atomic<UInt64>(0)
    // Touched only by GRDB on the writer's serial queue.
    private var changed = false

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }

    func databaseDidChange() { changed = true }

    func databaseDidChange(with event: DatabaseEvent) {
        changed = true
        stopObservingDatabaseChangesUntilNextTransaction()
    }

    func databaseDidCommit(_ db: Database) {
        if changed { generation.add(1, ordering: .releasing) }
        changed = false
    }

    func databaseDidRollback(_ db: Database) { changed = false }
}
