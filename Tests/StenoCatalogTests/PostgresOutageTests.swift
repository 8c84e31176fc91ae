import Foundation
import Logging
import PostgresNIO
import StenoCatalog
import StenoCore
import StenoTesting
import Testing

@testable import StenoPostgres

/// A catalog whose server stops and comes back: calls in between fail with a clear
/// `StoreError.unavailable` after `connect_timeout` instead of waiting in the pool's queue, and
/// the catalog works again once the server is back, without being reopened.
///
/// Each test stops the server of a cluster of its own: other tests use the shared one.
@Suite(
    "PostgreSQL catalog while the server is down", .serialized,
    .enabled(if: StoreBackend.postgresAvailable, "PostgreSQL is not installed (apt-get install postgresql)"))
struct PostgresOutageTests {
    let logger = Logger(label: "steno.test.postgres-outage")

    /// Calls `operation` until it succeeds, a bounded number of times: the pool reconnects with
    /// its own backoff once the server is back, and on a loaded machine a fresh server may not
    /// answer within the 2 s `connect_timeout` these tests use.
    func eventually<Value>(_ operation: () async throws -> Value) async throws -> Value {
        var lastError: (any Error)?
        for _ in 0..<120 {
            do { return try await operation() } catch { lastError = error }
            try await Task.sleep(for: .milliseconds(500))
        }
        throw lastError ?? CancellationError()
    }

    @Test func callsFailClearlyWhileTheServerIsDownAndWorkOnceItIsBack() async throws {
        let cluster = try await PostgresCluster.startPrivate()
        defer { cluster.shutdown() }
        let database = try await cluster.createDatabase()
        let url = "postgres://\(cluster.user)@127.0.0.1:\(cluster.port)/\(database)?sslmode=disable&connect_timeout=2"
        let catalog = try await eventually { try await PostgresCatalog.open(try PostgresSettings.parse(url: url), logger: logger) }
        defer { catalog.close() }
        _ = try await eventually { try await catalog.enqueue(JobDraft(kind: "noop", payload: "{}")) }

        try await cluster.stopServer()
        // A read and a transaction alike: the pool would queue both for a minute, then fail
        // them with its own error.
        for attempt in ["read", "transaction"] {
            let error = await #expect(throws: StoreError.self, "\(attempt)") {
                if attempt == "read" {
                    _ = try await catalog.jobs(state: nil, kind: nil, afterID: nil, limit: 10)
                } else {
                    _ = try await catalog.claim(workerID: "host/1/1", kinds: nil, limits: [:], leaseDuration: .seconds(60), now: Date())
                }
            }
            #expect(error?.isUnavailable == true, "\(String(describing: error))")
            #expect("\(error.map { "\($0)" } ?? "")".contains("127.0.0.1:\(cluster.port)/\(database)"), "\(String(describing: error))")
        }

        try await cluster.restartServer()
        let claims = try await eventually {
            try await catalog.claim(workerID: "host/1/1", kinds: nil, limits: [:], leaseDuration: .seconds(60), now: Date())
        }
        #expect(claims.count == 1, "the job enqueued before the outage is still there")
    }

    @Test func statementsInFlightWhenTheServerStopsFailAndDoNotHang() async throws {
        let cluster = try await PostgresCluster.startPrivate()
        defer { cluster.shutdown() }
        let database = try await cluster.createDatabase()
        // A connection for each statement, so that all are in flight at once.
        let url = "postgres://\(cluster.user)@127.0.0.1:\(cluster.port)/\(database)?sslmode=disable&connect_timeout=2&pool_size=16"
        let catalog = try await eventually { try await PostgresCatalog.open(try PostgresSettings.parse(url: url), logger: logger) }
        defer { catalog.close() }
        let observer = try await eventually { try await PostgresCatalog.open(try PostgresSettings.parse(url: url), logger: logger) }
        defer { observer.close() }
        let (started, startedContinuation) = AsyncStream.makeStream(of: Void.self)
        let outcomes = Task {
            await withTaskGroup(of: String.self) { group in
                for index in 0..<12 {
                    group.addTask {
                        do {
                            if index % 2 == 0 {
                                startedContinuation.yield()
                                try await catalog.execute("SELECT pg_sleep(30)")
                            } else {
                                try await catalog.transaction { tx in
                                    startedContinuation.yield()
                                    try await tx.execute("SELECT pg_sleep(30)")
                                }
                            }
                            return "finished"
                        } catch {
                            return "\(error)"
                        }
                    }
                }
                return await group.reduce(into: [String]()) { $0.append($1) }
            }
        }
        var iterator = started.makeAsyncIterator()
        for _ in 0..<12 { _ = await iterator.next() }
        // Stop only once the server itself runs all twelve.
        let sleeping = "SELECT count(*) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(30)' AND state = 'active'"
        _ = try await eventually {
            let count = try await observer.row(PostgresQuery(unsafeSQL: sleeping))?.decode(Int64.self) ?? 0
            if count < 12 { throw CancellationError() }
        }
        try await cluster.stopServer()
        let ended = await outcomes.value
        #expect(ended.count == 12)
        #expect(ended.allSatisfy { $0.contains("unreachable") }, "\(ended)")
    }

    @Test func listeningForJobsResumesAfterTheServerComesBack() async throws {
        let cluster = try await PostgresCluster.startPrivate()
        defer { cluster.shutdown() }
        let url = cluster.url(database: try await cluster.createDatabase()).replacingOccurrences(of: "connect_timeout=60", with: "connect_timeout=2")
        let settings = try PostgresSettings.parse(url: url)
        let listening = try await eventually { try await PostgresCatalog.open(settings, logger: logger) }
        defer { listening.close() }
        let (arrivals, continuation) = AsyncStream.makeStream(of: Void.self)
        let watcher = Task { try await listening.watchJobArrivals { continuation.yield() } }
        defer { watcher.cancel() }
        var iterator = arrivals.makeAsyncIterator()
        _ = await iterator.next()  // listening

        try await cluster.stopServer()
        try await cluster.restartServer()
        // Listening again says so (word may have been missed), then hears another daemon.
        _ = await iterator.next()
        let other = try await PostgresCatalog.open(settings, logger: logger)
        defer { other.close() }
        try await other.execute("NOTIFY steno_jobs")
        let heard: Void? = await iterator.next()
        #expect(heard != nil)
    }
}
