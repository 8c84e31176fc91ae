#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// Daemons on a PostgreSQL catalog: one daemon serves as on SQLite, and two daemons sharing
/// the catalog and the inbox watch it one at a time and ingest every file exactly once.
@Suite(
    "PostgreSQL daemons end to end", .blocksThreads, .serialized,
    .enabled(if: TestRequirement.runs(when: PostgresCluster.isInstalled), "PostgreSQL is not installed (apt-get install postgresql)"))
struct PostgresDaemonsEndToEndTests {
    /// A daemon on `url` with short leases, so a killed daemon's inbox and jobs move on quickly.
    static func config(_ url: String, watchLeaseSeconds: Int = 3, jobLeaseSeconds: Int = 5) -> String {
        """
        database = "\(url)"
        [watcher]
        settle_seconds = 0.3
        lease_seconds = \(watchLeaseSeconds)
        [jobs]
        workers = 2
        lease_seconds = \(jobLeaseSeconds)
        """
    }

    /// Waits (bounded) until `condition` holds, polling a state the daemon reports.
    static func waitUntil(_ timeout: TimeInterval = 120, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return true }
            usleep(200_000)
        }
        return false
    }

    @Test func aDaemonOnPostgreSQLIngestsAndReportsItsCatalog() async throws {
        let cluster = try await PostgresCluster.shared()
        let url = cluster.url(database: try await cluster.createDatabase())
        let daemon = try TestDaemon(config: Self.config(url))
        defer { daemon.shutdown() }
        let client = try daemon.client()
        let status = try client.call(StenoMethods.systemStatus, NoParams())
        #expect(status.databasePath.hasPrefix("postgres://steno@127.0.0.1:\(cluster.port)/"), "\(status.databasePath)")
        _ = try client.call(StenoMethods.usersAdd, UserAddParams(name: "alice"))
        let inbox = daemon.inboxDirectory + "/alice"
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        for index in 0..<20 { try IngestionEndToEndTests.wav(seed: index).write(to: URL(fileURLWithPath: "\(inbox)/pg-\(index).wav")) }
        let recordings = try IngestionEndToEndTests.waitForRecordings(daemon) { $0.count == 20 && $0.allSatisfy { $0.status == .ready } }
        #expect(recordings.count == 20 && recordings.allSatisfy { $0.status == .ready }, "\(daemon.log)")
        let hits = try client.call(StenoMethods.searchQuery, SearchParams(text: "pg"))
        #expect(hits.items.count == 20, "every recording is found by its path")
        #expect(daemon.log.contains("catalog ready"))
    }

    @Test func twoDaemonsShareTheCatalogAndTheInboxAndIngestEachFileOnce() async throws {
        let cluster = try await PostgresCluster.shared()
        let url = cluster.url(database: try await cluster.createDatabase())
        let shared = NSTemporaryDirectory() + "steno-pg-inbox-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: shared + "/alice", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: shared) }
        let first = try TestDaemon(config: Self.config(url), inbox: shared)
        defer { first.shutdown() }
        _ = try first.client().call(StenoMethods.usersAdd, UserAddParams(name: "alice"))
        let second = try TestDaemon(config: Self.config(url), inbox: shared)
        defer { second.shutdown() }
        #expect(Self.waitUntil(30) { second.log.contains("another daemon watches the inbox") }, "\(second.log)")

        for index in 0..<40 { try IngestionEndToEndTests.wav(seed: 100 + index).write(to: URL(fileURLWithPath: "\(shared)/alice/a-\(index).wav")) }
        let firstBatch = try IngestionEndToEndTests.waitForRecordings(second) { $0.count == 40 && $0.allSatisfy { $0.status == .ready } }
        #expect(firstBatch.count == 40, "\(first.log)")

        // The watching daemon dies; the other takes the inbox over once its lease runs out.
        _ = first.stop(signal: SIGKILL)
        #expect(Self.waitUntil(60) { second.log.contains("this daemon watches the inbox") }, "\(second.log)")
        for index in 40..<60 { try IngestionEndToEndTests.wav(seed: 100 + index).write(to: URL(fileURLWithPath: "\(shared)/alice/a-\(index).wav")) }
        let all = try IngestionEndToEndTests.waitForRecordings(second) { $0.count == 60 && $0.allSatisfy { $0.status == .ready } }
        #expect(all.count == 60, "\(second.log)")
        #expect(Set(all.map(\.id)).count == 60, "each file is one recording")
    }
}
