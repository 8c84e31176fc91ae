import Foundation
import Logging
import StenoAPI
import StenoCatalog
import StenoCore
import StenoSQLite
import Synchronization
import Testing

@testable import StenoService

/// The worker pool with fake handlers on a real temporary catalog.
@Suite("Job worker pool")
struct JobWorkerPoolTests {
    let folder = NSTemporaryDirectory() + "steno-pool-" + UUID().uuidString
    static let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// A pool on a fresh catalog, running until `body` returns; then shut down gracefully.
    func withPool(
        handlers: [any JobHandler], workers: Int = 2, pollInterval: Duration = .milliseconds(20),
        shutdownGrace: Duration = .seconds(10), leaseDuration: Duration = .seconds(60),
        _ body: (JobQueue, SQLiteCatalog) async throws -> Void,
        afterShutdown: (SQLiteCatalog) async throws -> Void = { _ in }
    ) async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let catalog = try await SQLiteCatalog.open(path: folder + "/catalog.sqlite")
        let queue = JobQueue(store: catalog)
        var settings = JobWorkerPool.Settings()
        settings.workers = workers
        settings.pollInterval = pollInterval
        settings.shutdownGrace = shutdownGrace
        settings.leaseDuration = leaseDuration
        settings.retryPolicy = RetryPolicy(base: .milliseconds(10), factor: 2, cap: .milliseconds(50), jitter: 0)
        let pool = JobWorkerPool(queue: queue, handlers: handlers, settings: settings, logger: Self.quiet)
        let running = Task { try await pool.run() }
        do {
            try await body(queue, catalog)
        } catch {
            queue.signal.stop()
            _ = try? await running.value
            throw error
        }
        // What graceful shutdown does.
        queue.signal.stop()
        try await running.value
        try await afterShutdown(catalog)
    }

    /// Polls `condition` every 10 ms, at most 2000 times; the bound only guards against hangs.
    func eventually(_ condition: () async throws -> Bool) async throws -> Bool {
        for _ in 0..<2000 {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    func allFinished(_ catalog: SQLiteCatalog) async throws -> Bool {
        try await catalog.jobs(state: nil, kind: nil, afterID: nil, limit: 1000).allSatisfy { !$0.state.isLive }
    }

    @Test func runsJobsWithoutExceedingTheWorkerBound() async throws {
        let handler = ConcurrencyProbe<ProbeJob>(hold: .milliseconds(30))
        try await withPool(handlers: [handler], workers: 3) { queue, catalog in
            for index in 0..<12 { _ = try await queue.enqueue(JobDraft(kind: "probe", payload: "{\"n\":\(index)}")) }
            #expect(try await eventually { try await allFinished(catalog) })
            let jobs = try await catalog.jobs(state: nil, kind: nil, afterID: nil, limit: 100)
            #expect(jobs.allSatisfy { $0.state == .succeeded && $0.attempts == 1 })
            #expect(jobs.allSatisfy { $0.result == #"{"probe":true}"# })
        }
        #expect(handler.runs == 12)
        #expect(handler.maxConcurrent <= 3)
        #expect(handler.maxConcurrent >= 1)
    }

    @Test func wakesIdleWorkersOnEnqueueWithoutWaitingForThePoll() async throws {
        let handler = ConcurrencyProbe<ProbeJob>(hold: .zero)
        // An hour-long poll: only the wake-up can start the job.
        try await withPool(handlers: [handler], pollInterval: .seconds(3600)) { queue, catalog in
            try await Task.sleep(for: .milliseconds(50))  // let the workers go idle
            let job = try await queue.enqueue(JobDraft(kind: "probe")).job
            #expect(try await eventually { try await catalog.job(id: job.id).state == .succeeded })
        }
    }

    @Test func retriesFailuresWithBackoffAndHonoursRetryRequests() async throws {
        let flaky = FlakyHandler<FlakyJob>(failures: 2)
        let throttled = ThrottledHandler()
        try await withPool(handlers: [flaky, throttled]) { queue, catalog in
            let flakyJob = try await queue.enqueue(JobDraft(kind: "flaky")).job
            let throttledJob = try await queue.enqueue(JobDraft(kind: "throttled")).job
            #expect(try await eventually { try await allFinished(catalog) })
            let flakyDone = try await catalog.job(id: flakyJob.id)
            #expect(flakyDone.state == .succeeded)
            #expect(flakyDone.attempts == 3)
            #expect(flakyDone.lastError == "flaky failure 2")
            let throttledDone = try await catalog.job(id: throttledJob.id)
            #expect(throttledDone.state == .succeeded)
            #expect(throttledDone.attempts == 2)
            #expect(throttledDone.lastError == "429 Too Many Requests")
        }
    }

    @Test func marksJobsDeadAfterTheirLastAttemptOrAPermanentError() async throws {
        let failing = FlakyHandler<FailingJob>(failures: 1000)
        let permanent = PermanentFailureHandler()
        try await withPool(handlers: [failing, permanent]) { queue, catalog in
            let failingJob = try await queue.enqueue(JobDraft(kind: "failing", maxAttempts: 3)).job
            let poisonJob = try await queue.enqueue(JobDraft(kind: "poison")).job
            #expect(try await eventually { try await allFinished(catalog) })
            let dead = try await catalog.job(id: failingJob.id)
            #expect(dead.state == .dead)
            #expect(dead.attempts == 3)
            let poisoned = try await catalog.job(id: poisonJob.id)
            #expect(poisoned.state == .dead)
            #expect(poisoned.attempts == 1)
            #expect(poisoned.lastError == "not audio")
        }
    }

    @Test func shutdownLetsShortJobsFinishAndReleasesLongOnes() async throws {
        let short = ConcurrencyProbe<ShortJob>(hold: .milliseconds(200))
        let endless = EndlessHandler()
        try await withPool(handlers: [short, endless], shutdownGrace: .milliseconds(500)) { queue, catalog in
            _ = try await queue.enqueue(JobDraft(kind: "short"))
            _ = try await queue.enqueue(JobDraft(kind: "endless"))
            #expect(try await eventually {
                try await catalog.jobs(state: .running, kind: nil, afterID: nil, limit: 10).count == 2
            })
        } afterShutdown: { catalog in
            let short = try #require(try await catalog.jobs(state: nil, kind: "short", afterID: nil, limit: 1).first)
            #expect(short.state == .succeeded)
            let released = try #require(try await catalog.jobs(state: nil, kind: "endless", afterID: nil, limit: 1).first)
            #expect(released.state == .queued)
            #expect(released.attempts == 0)
            #expect(released.leaseOwner == nil)
        }
        #expect(endless.sawCancellation)
    }

    @Test func requeuesExpiredLeasesOfACrashedWorkerAndRunsThem() async throws {
        let handler = ConcurrencyProbe<ProbeJob>(hold: .zero)
        try await withPool(handlers: [handler], leaseDuration: .milliseconds(300)) { queue, catalog in
            // A claim by a worker that died: nobody heartbeats it. A machine busy enough to
            // delay our own heartbeats past the 300 ms lease costs attempts (the lease doing its
            // job), so the job has plenty: what is tested is that it runs in the end.
            var draft = JobDraft(kind: "probe")
            draft.maxAttempts = 1_000
            _ = try await queue.enqueue(draft)
            _ = try await catalog.claim(workerID: "dead-host/1/1", kinds: ["other", "probe"], limits: [:], leaseDuration: .milliseconds(300), now: Date())
            #expect(try await eventually { try await allFinished(catalog) })
            let job = try #require(try await catalog.jobs(state: nil, kind: nil, afterID: nil, limit: 1).first)
            #expect(job.state == .succeeded)
            // The dead worker's attempt and ours (and any a lost heartbeat added).
            #expect(job.attempts >= 2)
        }
    }

    @Test func requeuesAtStartUpTheJobsOfAProcessOnThisHostThatIsGone() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let catalog = try await SQLiteCatalog.open(path: folder + "/catalog.sqlite")
        // Above the kernel's largest pid (2^22): no such process can exist.
        let deadOwner = "\(ProcessInfo.processInfo.hostName)/4194400/1"
        let job = try await catalog.enqueue(JobDraft(kind: "probe")).job
        _ = try await catalog.claim(workerID: deadOwner, kinds: nil, limits: [:], leaseDuration: .seconds(3600), now: Date()).first
        let otherHost = try await catalog.enqueue(JobDraft(kind: "probe")).job
        _ = try await catalog.claim(workerID: "elsewhere/4194400/1", kinds: nil, limits: [:], leaseDuration: .seconds(3600), now: Date()).first
        let pool = JobWorkerPool(queue: JobQueue(store: catalog), handlers: [ConcurrencyProbe<ProbeJob>(hold: .zero)], logger: Self.quiet)
        await pool.recoverAtStartUp()
        let recovered = try await catalog.job(id: job.id)
        #expect(recovered.state == .queued)
        #expect(recovered.lastError?.contains("was abandoned") == true)
        // Another host's process cannot be checked: its job waits for the lease.
        #expect(try await catalog.job(id: otherHost.id).state == .running)
    }

    @Test func aPayloadThatDoesNotReadKillsItsOwnJobAtOnceAndTheOthersRun() async throws {
        try await withPool(handlers: [NoopJobHandler()]) { queue, catalog in
            let bad = try await queue.enqueue(JobDraft(kind: NoopJob.name, payload: #"{"sleepMilliseconds": "soon"}"#)).job
            let good = try await queue.enqueue(try NoopJob.draft(.init(sleepMilliseconds: 1))).job
            #expect(try await eventually { try await allFinished(catalog) })
            let dead = try await catalog.job(id: bad.id)
            #expect(dead.state == .dead && dead.attempts == 1)
            #expect(dead.lastError?.contains("payload.sleepMilliseconds") == true, "\(dead.lastError ?? "")")
            #expect(try await catalog.job(id: good.id).state == .succeeded)
        }
    }

    @Test func theNoopHandlerSleepsFailsAndSucceedsAsAsked() async throws {
        try await withPool(handlers: [NoopJobHandler()]) { queue, catalog in
            let job = try await queue.enqueue(
                JobDraft(kind: NoopJobHandler.kind, payload: #"{"sleepMilliseconds": 5, "failTimes": 1}"#)).job
            let bad = try await queue.enqueue(JobDraft(kind: NoopJobHandler.kind, payload: #"{"failTimes": -1}"#)).job
            #expect(try await eventually { try await allFinished(catalog) })
            let done = try await catalog.job(id: job.id)
            #expect(done.state == .succeeded)
            #expect(done.attempts == 2)
            #expect(done.result == #"{"attempt":2,"sleptMilliseconds":5}"#)
            #expect(try await catalog.job(id: bad.id).state == .dead)
        }
    }

    @Test func theLastProgressOfARunIsKeptWithItsJob() async throws {
        // Reports closer together than the reporter writes: the last one waits for its interval,
        // which ends after the job has finished.
        try await withPool(handlers: [ProgressHandler()]) { queue, catalog in
            let job = try await queue.enqueue(JobDraft(kind: ProgressJob.name)).job
            #expect(try await eventually { try await allFinished(catalog) })
            let done = try await catalog.job(id: job.id)
            #expect(done.state == .succeeded && done.progress == "step 3 of 3", "\(done.progress ?? "no progress")")
        }
    }
}

// MARK: - Fake handlers

enum ProgressJob: TestJob { static let name = "progress" }

/// Reports three steps at once, then succeeds.
struct ProgressHandler: JobHandler {
    func run(_ attempts: [JobAttempt<ProgressJob>], context: JobContext) async throws -> [JobOutcome<JSONValue?>] {
        for step in 1...3 { await context.reportProgress("step \(step) of 3") }
        return attempts.map { _ in .succeeded(nil) }
    }
}

/// Job kinds of the fake handlers: any payload; a JSON result, or none.
protocol TestJob: JobKind where Payload == JSONValue, Result == JSONValue? {}

enum ProbeJob: TestJob { static let name = "probe" }
enum ShortJob: TestJob { static let name = "short" }
enum FlakyJob: TestJob { static let name = "flaky" }
enum FailingJob: TestJob { static let name = "failing" }
enum ThrottledJob: TestJob { static let name = "throttled" }
enum PoisonJob: TestJob { static let name = "poison" }
enum EndlessJob: TestJob { static let name = "endless" }

/// Counts runs and the most that ran at once.
final class ConcurrencyProbe<Kind: TestJob>: JobHandler {
    let hold: Duration
    private let counters = Mutex((current: 0, max: 0, runs: 0))

    init(hold: Duration) {
        self.hold = hold
    }

    var maxConcurrent: Int { counters.withLock { $0.max } }
    var runs: Int { counters.withLock { $0.runs } }

    func run(_ attempts: [JobAttempt<Kind>], context: JobContext) async throws -> [JobOutcome<JSONValue?>] {
        counters.withLock {
            $0.current += 1
            $0.runs += 1
            $0.max = max($0.max, $0.current)
        }
        defer { counters.withLock { $0.current -= 1 } }
        if hold > .zero { try await Task.sleep(for: hold) }
        return attempts.map { _ in .succeeded(["probe": true]) }
    }
}

/// Fails its first `failures` attempts.
struct FlakyHandler<Kind: TestJob>: JobHandler {
    struct Failure: Error, CustomStringConvertible {
        var attempt: Int
        var description: String { "flaky failure \(attempt)" }
    }

    let failures: Int

    func run(_ attempts: [JobAttempt<Kind>], context: JobContext) async throws -> [JobOutcome<JSONValue?>] {
        await attempts.eachAttempt { attempt in
            if attempt.job.attempts <= failures { throw Failure(attempt: attempt.job.attempts) }
            return .succeeded(nil)
        }
    }
}

/// Asks for a retry once, like a throttled provider.
struct ThrottledHandler: JobHandler {
    func run(_ attempts: [JobAttempt<ThrottledJob>], context: JobContext) async throws -> [JobOutcome<JSONValue?>] {
        attempts.map { $0.job.attempts == 1 ? .retry(after: .milliseconds(30), reason: "429 Too Many Requests") : .succeeded(nil) }
    }
}

/// Always fails permanently.
struct PermanentFailureHandler: JobHandler {
    func run(_ attempts: [JobAttempt<PoisonJob>], context: JobContext) async throws -> [JobOutcome<JSONValue?>] {
        throw JobError.permanent("not audio")
    }
}

/// Runs until cancelled.
final class EndlessHandler: JobHandler {
    private let cancelled = Mutex(false)

    var sawCancellation: Bool { cancelled.withLock { $0 } }

    func run(_ attempts: [JobAttempt<EndlessJob>], context: JobContext) async throws -> [JobOutcome<JSONValue?>] {
        do {
            try await Task.sleep(for: .seconds(3600))
        } catch {
            cancelled.withLock { $0 = context.isCancelled }
            throw error
        }
        return attempts.map { _ in .succeeded(nil) }
    }
}
