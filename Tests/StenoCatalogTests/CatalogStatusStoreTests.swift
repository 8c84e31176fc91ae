import Foundation
import StenoCore
import Testing

@testable import StenoCatalog
@testable import StenoPostgres
@testable import StenoSQLite

/// `system.status`'s view of the catalog, on every backend, and backups where the backend
/// leaves them to its own tools.
@Suite("Catalog status")
struct CatalogStatusStoreTests {
    @Test(arguments: StoreBackend.available) func statisticsCountRowsAndTheQueue(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
        let fresh = try await catalog.statistics()
        #expect(Set(fresh.counts.keys) == Set(CatalogStatistics.countedTables))
        #expect(fresh.counts.values.allSatisfy { $0 == 0 })
        #expect(fresh.queueDepth == 0)
        switch backend {
        case .sqlite:
            #expect(fresh.schemaVersion == SchemaMigrations.files.count)
            #expect(fresh.location.hasSuffix("catalog.sqlite"))
        case .postgres:
            #expect(fresh.schemaVersion == PostgresMigrations.files.map { PostgresMigrations.version(of: $0.identifier) }.max())
            #expect(fresh.location.hasPrefix("postgres://"))
        }
        _ = try await catalog.enqueue([JobDraft(kind: "k"), JobDraft(kind: "k")])
        let claimed = try #require(
            try await catalog.claim(workerID: "w", kinds: nil, limits: [:], leaseDuration: .seconds(60), now: Date()).first)
        #expect(try await catalog.statistics().queueDepth == 2)
        #expect(try await catalog.complete([JobCompletion(claim: claimed, result: nil)], now: Date()) == [true])
        _ = try await catalog.addUser(UserDraft(name: "bob"))
        let after = try await catalog.statistics()
        #expect(after.queueDepth == 1)
        #expect(after.counts["jobs"] == 2)
        #expect(after.counts["users"] == 1)
    }

    @Test(.enabled(if: StoreBackend.postgresAvailable, "PostgreSQL is not installed (apt-get install postgresql)"))
    func postgresBackupsAreLeftToPgDump() async throws {
        let opened = try await StoreBackend.postgres.open()
        let target = NSTemporaryDirectory() + "steno-backup-" + UUID().uuidString
        await #expect {
            _ = try await opened.store.backup(to: target)
        } throws: { error in
            guard case .failedPrecondition(let message) = error as? StoreError else { return false }
            return message.contains("pg_dump") && message.contains("nothing was written")
        }
        #expect(!FileManager.default.fileExists(atPath: target))
    }
}
