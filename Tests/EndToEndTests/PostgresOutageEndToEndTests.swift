#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// Two daemons on one PostgreSQL catalog and one inbox live through the server being stopped
/// for 20 s in the middle of an ingest: requests in between answer a clear error in bounded
/// time, and once it is back both recover by themselves with every file one `ready` recording.
///
/// The test stops the server of a cluster of its own: other tests use the shared one.
@Suite(
    "PostgreSQL outage end to end", .blocksThreads, .serialized,
    .enabled(if: TestRequirement.runs(when: PostgresCluster.isInstalled), "PostgreSQL is not installed (apt-get install postgresql)"))
struct PostgresOutageEndToEndTests {
    /// The outage the acceptance asks for.
    static let outage: TimeInterval = 20
    /// How long a request may wait for a connection (the daemon's default is 10 s).
    static let connectTimeout = 5

    static func config(_ url: String) -> String {
        PostgresDaemonsEndToEndTests.config(url, watchLeaseSeconds: 6, jobLeaseSeconds: 10)
    }

    /// Every recording, or nil while the daemon cannot answer (its catalog still reconnecting).
    static func recordings(_ daemon: TestDaemon) -> [Recording]? {
        try? IngestionEndToEndTests.recordings(daemon)
    }

    static func write(_ range: Range<Int>, to folder: String) throws {
        for index in range {
            try IngestionEndToEndTests.wav(seed: 500 + index).write(to: URL(fileURLWithPath: "\(folder)/outage-\(index).wav"))
        }
    }

    @Test func daemonsRecoverByThemselvesFromAStoppedServerWithNothingLostOrDoubled() async throws {
        let cluster = try await PostgresCluster.startPrivate()
        defer { cluster.shutdown() }
        let database = try await cluster.createDatabase()
        let url = "postgres://\(cluster.user)@127.0.0.1:\(cluster.port)/\(database)?sslmode=disable&connect_timeout=\(Self.connectTimeout)"
        let shared = NSTemporaryDirectory() + "steno-pg-outage-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: shared + "/alice", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: shared) }
        let first = try TestDaemon(config: Self.config(url), inbox: shared)
        defer { first.shutdown() }
        let client = try first.client()
        _ = try client.call(StenoMethods.usersAdd, UserAddParams(name: "alice"))
        let second = try TestDaemon(config: Self.config(url), inbox: shared)
        defer { second.shutdown() }
        #expect(PostgresDaemonsEndToEndTests.waitUntil(60) { second.log.contains("another daemon watches the inbox") }, "\(second.log)")

        // Ingest under way: the first files are recordings, the rest still coming.
        try Self.write(0..<150, to: shared + "/alice")
        #expect(PostgresDaemonsEndToEndTests.waitUntil(120) { (Self.recordings(first)?.count ?? 0) > 0 }, "\(first.log)")
        try await cluster.stopServer()
        let stoppedAt = Date()
        // Files keep arriving while the catalog is away.
        try Self.write(150..<200, to: shared + "/alice")

        // A request answers, within about connect_timeout, that the catalog is unreachable.
        let asked = Date()
        var answer: StenoClientError?
        do {
            _ = try client.call(StenoMethods.recordingsList, RecordingListParams(limit: 10))
        } catch {
            answer = error
        }
        let waited = Date().timeIntervalSince(asked)
        guard case .rpc(let refusal)? = answer else {
            Issue.record("expected a JSON-RPC error while the server is down, got \(String(describing: answer))")
            return
        }
        #expect(refusal.code == RPCError.unavailableCode, "\(refusal)")
        #expect(refusal.message.contains("127.0.0.1:\(cluster.port)/\(database)") && refusal.message.contains("unreachable"), "\(refusal)")
        // Far above connect_timeout for a loaded machine, far below the pool's own minute.
        #expect(waited < 45, "the request waited \(waited) s")

        // The outage itself is the fault injected: held for its length, then the server returns.
        let left = Self.outage - Date().timeIntervalSince(stoppedAt)
        if left > 0 { try await Task.sleep(for: .milliseconds(Int(left * 1000))) }
        try await cluster.restartServer()

        var all: [Recording] = []
        let recovered = PostgresDaemonsEndToEndTests.waitUntil(240) {
            all = Self.recordings(second) ?? all
            return all.count >= 200 && all.allSatisfy { $0.status == .ready }
        }
        #expect(recovered, "\(all.count) recordings\n--- first\n\(first.log)\n--- second\n\(second.log)")
        #expect(all.count == 200, "each file is one recording")
        let paths = all.flatMap { $0.paths.map(\.path) }
        #expect(paths.count == 200 && Set(paths).count == 200, "each file is catalogued once")
        var running: [Job]?
        #expect(
            PostgresDaemonsEndToEndTests.waitUntil(120) {
                running = try? client.call(StenoMethods.jobsList, JobListParams(state: .running, limit: 100)).items
                return running?.isEmpty == true
            }, "jobs still running: \(String(describing: running))\n--- first\n\(first.log)\n--- second\n\(second.log)")
        let dead = try client.call(StenoMethods.jobsList, JobListParams(state: .dead, limit: 100)).items
        #expect(dead.isEmpty, "\(dead)")
        // Each daemon noticed the outage and its end, and said so once per loop.
        for daemon in [first, second] {
            #expect(daemon.log.contains("wait for the catalog database"), "\(daemon.log)")
            #expect(daemon.log.contains("reach the catalog database again"), "\(daemon.log)")
        }
    }
}
