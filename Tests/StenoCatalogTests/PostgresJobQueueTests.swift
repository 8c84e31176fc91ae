import Foundation
import Logging
import PostgresNIO
import StenoCatalog
import StenoCore
import StenoTesting
import Testing

@testable import StenoPostgres

/// The job queue shared by several daemons: each daemon has its own pool on the one database,
/// and the database alone keeps them from taking a job twice or enqueuing a key twice.
@Suite("PostgreSQL job queue shared by daemons", .enabled(if: StoreBackend.postgresAvailable, "PostgreSQL is not installed (apt-get install postgresql)"))
struct PostgresJobQueueTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    /// `count` catalogs on one fresh database, as `count` daemons would open it.
    func daemons(_ count: Int) async throws -> [PostgresCatalog] {
        let cluster = try await PostgresCluster.shared()
        let settings = try PostgresSettings.parse(url: cluster.socketURL(database: try await cluster.createDatabase()))
        var catalogs: [PostgresCatalog] = []
        for index in 0..<count {
            catalogs.append(try await PostgresCatalog.open(settings, logger: Logger(label: "steno.test.daemon\(index)")))
        }
        return catalogs
    }

    @Test func daemonsClaimingTogetherNeverShareAJob() async throws {
        let catalogs = try await daemons(2)
        defer { catalogs.forEach { $0.close() } }
        let count = 300
        _ = try await catalogs[0].enqueue((0..<count).map { JobDraft(kind: $0.isMultiple(of: 3) ? "batch" : "k", payload: "{\"n\":\($0)}") })
        let claimed = try await JobQueueStoreTests.claimAll(from: catalogs, workers: 12, jobs: count, limits: ["batch": 4], now: t0)
        #expect(claimed.count == count)
        #expect(Set(claimed).count == count)
        let running = try await catalogs[1].jobs(state: .running, kind: nil, afterID: nil, limit: 1000)
        #expect(running.count == count)
        #expect(running.allSatisfy { $0.attempts == 1 })
    }

    @Test func daemonsEnqueuingOneKeyTogetherMakeOneJob() async throws {
        let catalogs = try await daemons(2)
        defer { catalogs.forEach { $0.close() } }
        let results = try await withThrowingTaskGroup(of: [EnqueueResult].self) { group in
            for attempt in 0..<16 {
                let catalog = catalogs[attempt % catalogs.count]
                group.addTask {
                    try await catalog.enqueue([
                        JobDraft(kind: "ingest", payload: #"{"path":"alice/a.wav"}"#, uniqueKey: "ingest:alice/a.wav"),
                        JobDraft(kind: "ingest", payload: #"{"path":"alice/b.wav"}"#, uniqueKey: "ingest:alice/b.wav"),
                    ])
                }
            }
            var all: [EnqueueResult] = []
            for try await batch in group { all += batch }
            return all
        }
        #expect(results.filter(\.isNew).count == 2)
        #expect(Set(results.map(\.job.id)).count == 2)
        #expect(try await catalogs[0].jobs(state: nil, kind: nil, afterID: nil, limit: 100).count == 2)
    }

    @Test func daemonsEnqueuingOverlappingBatchesTogetherMakeOneJobPerKey() async throws {
        let catalogs = try await daemons(2)
        defer { catalogs.forEach { $0.close() } }
        let keys = (0..<60).map { "ingest:alice/\($0).wav" }
        // Each batch holds every key, in an order of its own, and jobs without a key.
        let results = try await withThrowingTaskGroup(of: [EnqueueResult].self) { group in
            for attempt in 0..<6 {
                let catalog = catalogs[attempt % catalogs.count]
                let ordered = attempt.isMultiple(of: 2) ? keys : keys.reversed()
                group.addTask {
                    try await catalog.enqueue(ordered.map { JobDraft(kind: "ingest", payload: "{}", uniqueKey: $0) } + [JobDraft(kind: "other")])
                }
            }
            var all: [EnqueueResult] = []
            for try await batch in group { all += batch }
            return all
        }
        let keyed = results.filter { $0.job.uniqueKey != nil }
        #expect(keyed.filter(\.isNew).count == keys.count)
        #expect(Dictionary(grouping: keyed, by: { $0.job.uniqueKey ?? "" }).values.allSatisfy { Set($0.map(\.job.id)).count == 1 })
        #expect(try await catalogs[0].jobs(state: .queued, kind: "ingest", afterID: nil, limit: 1000).count == keys.count)
        #expect(try await catalogs[1].jobs(state: .queued, kind: "other", afterID: nil, limit: 1000).count == 6)
    }

    @Test func aClaimAfterABurstOfEnqueuesWalksTheClaimIndexInsteadOfSortingTheQueue() async throws {
        let catalogs = try await daemons(1)
        let catalog = catalogs[0]
        defer { catalog.close() }
        // A burst into a new catalog, in batches as a rescan enqueues: autovacuum has not
        // looked at the table yet.
        for batch in 0..<50 {
            _ = try await catalog.enqueue((0..<100).map { JobDraft(kind: "k", payload: "{\"n\":\(batch * 100 + $0)}") })
        }
        let claim = PostgresCatalog.claimStatement(
            workerID: "w", kinds: ["k"], limits: [:], nowMilliseconds: PostgresCatalog.milliseconds(t0.addingTimeInterval(1e6)),
            expires: 0)
        let plan = try await catalog.rows(PostgresQuery(unsafeSQL: "EXPLAIN " + claim.sql, binds: claim.binds))
            .map { try $0.decode(String.self) }.joined(separator: "\n")
        // A sort would read every queued job for each claim: claims slow down as the queue grows.
        #expect(!plan.contains("Sort"), "\(plan)")
        #expect(plan.contains("jobs_claim"), "\(plan)")
    }

    @Test func thePreparedClaimAndCompletionHaveOneTextWhateverTheirValues() {
        let claims = [
            PostgresCatalog.claimStatement(workerID: "host/1/1", kinds: ["a", "b"], limits: ["a": 8, "b": 1], nowMilliseconds: 5, expires: 9),
            PostgresCatalog.claimStatement(workerID: "", kinds: [], limits: [:], nowMilliseconds: -1, expires: 0),
        ]
        #expect(claims.allSatisfy { $0.sql == ClaimStatementText.sql })
        let claim = ClaimedJob(job: Job(id: 1, kind: "k", state: .running, runAt: t0, createdAt: t0, updatedAt: t0), token: 2)
        let completions = [
            PostgresCatalog.completion([JobCompletion(claim: claim, result: nil)], nowMilliseconds: 1),
            PostgresCatalog.completion([JobCompletion(claim: claim, result: "{}"), JobCompletion(claim: claim, result: nil)], nowMilliseconds: 2),
        ]
        #expect(completions.allSatisfy { $0.sql == CompletionStatementText.sql })
    }

    /// A worker's heartbeat renewed its batch's leases in whatever order the plan met the rows,
    /// while the same batch's ingest commit locked them in id order: PostgreSQL broke the
    /// deadlock by failing the heartbeat (seen with three daemons ingesting 2,000 files), and
    /// the worker lost its leases. Heartbeats and completions lock in id order too.
    @Test func heartbeatsAndCompletionsBesideLeaseChecksNeverDeadlock() async throws {
        let catalogs = try await daemons(2)
        defer { catalogs.forEach { $0.close() } }
        _ = try await catalogs[0].enqueue((0..<40).map { JobDraft(kind: "ingest", payload: "{\"n\":\($0)}") })
        let claims = try await catalogs[0].claim(workerID: "w", kinds: nil, limits: ["ingest": 40], leaseDuration: .seconds(600), now: t0)
        try #require(claims.count == 40)
        let descending = claims.sorted { $0.job.id > $1.job.id }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for round in 0..<60 {
                    let held = try await catalogs[0].heartbeat(descending, extendBy: .seconds(600), now: t0.addingTimeInterval(Double(round)))
                    #expect(held.count == 40)
                }
            }
            group.addTask {
                for _ in 0..<60 {
                    let held = try await catalogs[1].transaction { tx in try await PostgresCatalog.heldLeases(claims, in: tx) }
                    #expect(held.count == 40)
                }
            }
            try await group.waitForAll()
        }
        let completed = try await catalogs[1].complete(descending.map { JobCompletion(claim: $0, result: nil) }, now: t0)
        #expect(completed.allSatisfy { $0 })
    }

    @Test func daemonsFiringOneScheduleTogetherEnqueueItOnce() async throws {
        let catalogs = try await daemons(2)
        defer { catalogs.forEach { $0.close() } }
        let fireTime = t0
        let results = try await withThrowingTaskGroup(of: EnqueueResult?.self) { group in
            for attempt in 0..<8 {
                let catalog = catalogs[attempt % 2]
                group.addTask {
                    try await catalog.enqueueScheduled(JobDraft(kind: "sync"), schedule: "schedule:sync", fireTime: fireTime)
                }
            }
            var all: [EnqueueResult?] = []
            for try await result in group { all.append(result) }
            return all
        }
        #expect(results.compactMap { $0 }.count == 1)
        #expect(try await catalogs[0].jobs(state: nil, kind: "sync", afterID: nil, limit: 10).count == 1)
    }

    @Test func aJobOfTwoDaemonsHasStrictlyIncreasingTokens() async throws {
        let catalogs = try await daemons(2)
        defer { catalogs.forEach { $0.close() } }
        let job = try await catalogs[0].enqueue(JobDraft(kind: "k", maxAttempts: 10)).job
        var tokens: [Int64] = []
        for round in 0..<6 {
            let catalog = catalogs[round % 2]
            let now = t0.addingTimeInterval(Double(round) * 100)
            let claim = try #require(try await catalog.claim(workerID: "w\(round)", kinds: nil, limits: [:], leaseDuration: .seconds(10), now: now).first)
            #expect(claim.job.id == job.id)
            tokens.append(claim.token)
            // The other daemon finds the lease expired and requeues it.
            #expect(try await catalogs[(round + 1) % 2].requeueExpiredLeases(now: now.addingTimeInterval(11)) == 1)
        }
        #expect(tokens == Array(1...6))
    }

    @Test func anotherDaemonHearsOfEnqueuedAndRequeuedJobs() async throws {
        let catalogs = try await daemons(2)
        defer { catalogs.forEach { $0.close() } }
        let (arrivals, continuation) = AsyncStream.makeStream(of: Void.self)
        let watcher = Task { try await catalogs[0].watchJobArrivals { continuation.yield() } }
        defer { watcher.cancel() }
        var heard = arrivals.makeAsyncIterator()
        _ = await heard.next()  // listening now
        _ = try await catalogs[1].enqueue([JobDraft(kind: "k"), JobDraft(kind: "k")])
        #expect(await heard.next() != nil)
        let claim = try #require(try await catalogs[1].claim(workerID: "w", kinds: nil, limits: [:], leaseDuration: .seconds(1), now: t0).first)
        #expect(try await catalogs[1].release(claim, now: t0))
        #expect(await heard.next() != nil)
    }

    @Test func enqueueInsideAnotherTransactionCommitsAndRollsBackWithIt() async throws {
        let catalogs = try await daemons(1)
        let catalog = catalogs[0]
        defer { catalog.close() }
        struct Abort: Error {}
        let now = t0
        do {
            try await catalog.transaction { tx in
                _ = try await PostgresCatalog.enqueue(JobDraft(kind: "link", uniqueKey: "link:1"), in: tx, now: now)
                throw Abort()
            }
        } catch is Abort {}
        #expect(try await catalog.jobs(state: nil, kind: nil, afterID: nil, limit: 10).isEmpty)
        let result = try await catalog.transaction { tx in
            try await PostgresCatalog.enqueue(JobDraft(kind: "link", uniqueKey: "link:1"), in: tx, now: now)
        }
        #expect(result.isNew)
        #expect(try await catalog.job(id: result.job.id).uniqueKey == "link:1")
    }
}
