import Foundation
import GRDB
import StenoCore
import Testing

@testable import StenoCatalog
@testable import StenoSQLite

/// The durable job queue, on every backend: ordering, unique keys, atomic claims, fencing, backoff,
/// dead jobs, release, retry and cancel.
@Suite("Job queue store")
struct JobQueueStoreTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    func at(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }

    func claim(_ catalog: any JobQueueStore, at seconds: Double = 0, worker: String = "w1", kinds: Set<String>? = nil,
               lease: Duration = .seconds(60)) async throws -> ClaimedJob? {
        try await catalog.claim(workerID: worker, kinds: kinds, limits: [:], leaseDuration: lease, now: at(seconds)).first
    }

    func expectConflict(_ body: () async throws -> Void, containing text: String, sourceLocation: SourceLocation = #_sourceLocation) async {
        do {
            try await body()
            Issue.record("expected a conflict", sourceLocation: sourceLocation)
        } catch let StoreError.conflict(message) {
            #expect(message.contains(text), "\(message)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected a conflict, got \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: StoreBackend.available) func claimsByPriorityThenRunAtThenID(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
        let low = try await catalog.enqueue(JobDraft(kind: "k", priority: 0, runAt: at(-3))).job
        let highLater = try await catalog.enqueue(JobDraft(kind: "k", priority: 10, runAt: at(-1))).job
        let highEarlier = try await catalog.enqueue(JobDraft(kind: "k", priority: 10, runAt: at(-2))).job
        let lowTie = try await catalog.enqueue(JobDraft(kind: "k", priority: 0, runAt: at(-3))).job
        _ = try await catalog.enqueue(JobDraft(kind: "k", priority: 99, runAt: at(100)))  // not due
        var order: [Int64] = []
        while let claimed = try await claim(catalog) { order.append(claimed.job.id) }
        #expect(order == [highEarlier.id, highLater.id, low.id, lowTie.id])
        let future = try #require(try await claim(catalog, at: 100))
        #expect(future.job.priority == 99)
        #expect(future.job.state == .running)
        #expect(future.job.attempts == 1)
        #expect(future.job.leaseOwner == "w1")
        #expect(future.job.leaseExpiresAt == at(160))
    }

    @Test(arguments: StoreBackend.available) func claimsOnlyTheKindsAsked(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
        _ = try await catalog.enqueue(JobDraft(kind: "calendar.sync", priority: 50))
        let ingest = try await catalog.enqueue(JobDraft(kind: "ingest \"quoted\"")).job
        let claimed = try await claim(catalog, at: 1, kinds: ["ingest \"quoted\"", "other"])
        #expect(claimed?.job.id == ingest.id)
        #expect(try await claim(catalog, at: 1, kinds: ["other"]) == nil)
        #expect(try await claim(catalog, at: 1, kinds: []) == nil)
    }

    @Test(arguments: StoreBackend.available) func uniqueKeysAllowOneLiveJobAndAnotherAfterItFinished(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
        let draft = JobDraft(kind: "ingest", payload: #"{"path":"alice/a.m4a"}"#, uniqueKey: "ingest:alice/a.m4a")
        let first = try await catalog.enqueue(draft)
        #expect(first.isNew)
        let again = try await catalog.enqueue(draft)
        #expect(again == .alreadyLive(first.job))
        let claimed = try #require(try await claim(catalog))
        #expect(try await catalog.enqueue(draft).job.state == .running)
        #expect(try await catalog.enqueue(draft).isNew == false)
        // Waiting for a retry is live too.
        #expect(try await catalog.fail(claimed, error: "busy", retryAfter: nil, now: at(1)) == .failed)
        #expect(try await catalog.enqueue(draft).isNew == false)
        let second = try #require(try await claim(catalog, at: 3600))
        #expect(try await catalog.complete([JobCompletion(claim: second, result: #"{"ok":true}"#)], now: at(3601)) == [true])
        let fresh = try await catalog.enqueue(draft)
        #expect(fresh.isNew)
        #expect(fresh.job.id != first.job.id)
        #expect(try await catalog.jobs(state: nil, kind: "ingest", afterID: nil, limit: 10).count == 2)
    }

    @Test func enqueueInsideAnotherTransactionCommitsAndRollsBackWithIt() async throws {
        let temporary = TemporaryCatalog()
        let catalog = try await temporary.open()
        struct Abort: Error {}
        do {
            try await catalog.writer.write { db in
                _ = try SQLiteCatalog.enqueue(JobDraft(kind: "link", uniqueKey: "link:1"), in: db)
                throw Abort()
            }
        } catch is Abort {}
        #expect(try await catalog.jobs(state: nil, kind: nil, afterID: nil, limit: 10).isEmpty)
        let result = try await catalog.writer.write { db in
            try SQLiteCatalog.enqueue(JobDraft(kind: "link", uniqueKey: "link:1"), in: db)
        }
        #expect(result.isNew)
        #expect(try await catalog.job(id: result.job.id).uniqueKey == "link:1")
    }

    @Test(arguments: StoreBackend.available) func badDraftsAreRejected(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
        await #expect(throws: StoreError.invalid("a job needs a kind")) { _ = try await catalog.enqueue(JobDraft(kind: " ")) }
        await #expect(throws: StoreError.self) { _ = try await catalog.enqueue(JobDraft(kind: "k", payload: "{not json")) }
        await #expect(throws: StoreError.self) { _ = try await catalog.enqueue(JobDraft(kind: "k", maxAttempts: 0)) }
    }

    @Test(arguments: StoreBackend.available) func concurrentClaimersNeverShareAJob(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
        let count = 200
        _ = try await catalog.enqueue((0..<count).map { JobDraft(kind: "k", payload: "{\"n\":\($0)}") })
        let claimed = try await Self.claimAll(from: [catalog], workers: 16, jobs: count, limits: [:], now: at(0))
        #expect(claimed.count == count)
        #expect(Set(claimed).count == count)
        #expect(try await catalog.jobs(state: .running, kind: nil, afterID: nil, limit: 1000).count == count)
    }

    /// Every job claimed by `workers` concurrent workers, spread over the catalogs (daemons),
    /// each claiming until nothing is left: the ids of all claims, repeats kept.
    static func claimAll(
        from catalogs: [any JobQueueStore], workers: Int, jobs count: Int, limits: [String: Int], now: Date
    ) async throws -> [Int64] {
        try await withThrowingTaskGroup(of: [Int64].self) { group in
            for worker in 0..<workers {
                let catalog = catalogs[worker % catalogs.count]
                group.addTask {
                    var mine: [Int64] = []
                    // Bounded: at most every job, then an empty claim ends the loop.
                    for _ in 0...count {
                        let claims = try await catalog.claim(
                            workerID: "host\(worker % catalogs.count)/\(worker)", kinds: nil, limits: limits, leaseDuration: .seconds(60),
                            now: now)
                        if claims.isEmpty { break }
                        mine += claims.map(\.job.id)
                    }
                    return mine
                }
            }
            var all: [Int64] = []
            for try await ids in group { all += ids }
            return all
        }
    }

    @Test(arguments: StoreBackend.available) func aStaleTokenIsRejectedAfterTheLeaseExpiredAndTheJobWasReclaimed(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
        let job = try await catalog.enqueue(JobDraft(kind: "k")).job
        let slow = try #require(try await claim(catalog, at: 0, worker: "slow", lease: .seconds(10)))
        #expect(try await catalog.heartbeat([slow], extendBy: .seconds(10), now: at(5)) == [slow.job.id])  // until 15
        #expect(try await catalog.requeueExpiredLeases(now: at(14)) == 0)
        #expect(try await catalog.requeueExpiredLeases(now: at(15)) == 1)
        let requeued = try await catalog.job(id: job.id)
        #expect(requeued.state == .queued)
        #expect(requeued.lastError?.contains("lease of slow expired") == true)
        let rescuer = try #require(try await claim(catalog, at: 16, worker: "rescuer"))
        #expect(rescuer.token > slow.token)
        #expect(rescuer.job.attempts == 2)

        #expect(try await catalog.complete([JobCompletion(claim: slow, result: nil)], now: at(17)) == [false])
        await expectConflict({ _ = try await catalog.fail(slow, error: "x", retryAfter: nil, now: at(17)) }, containing: "stale lease")
        #expect(try await catalog.heartbeat([slow], extendBy: .seconds(10), now: at(17)).isEmpty)
        #expect(try await catalog.release(slow, now: at(17)) == false)
        #expect(try await catalog.complete([JobCompletion(claim: rescuer, result: #"{"by":"rescuer"}"#)], now: at(18)) == [true])
        let done = try await catalog.job(id: job.id)
        #expect(done.state == .succeeded)
        #expect(done.result == #"{"by":"rescuer"}"#)
        #expect(done.finishedAt == at(18))
        #expect(done.leaseOwner == nil)
        // Finished: even the current token cannot finish it again.
        #expect(try await catalog.complete([JobCompletion(claim: rescuer, result: nil)], now: at(19)) == [false])
    }

    @Test(arguments: StoreBackend.available) func backoffGrowsAndHonoursRetryAfter(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
        let job = try await catalog.enqueue(JobDraft(kind: "k", maxAttempts: 8)).job
        var now = 0.0
        var delays: [Double] = []
        for _ in 1...5 {
            let claimed = try #require(try await claim(catalog, at: now))
            #expect(try await catalog.fail(claimed, error: "boom", retryAfter: nil, now: at(now)) == .failed)
            let runAt = try await catalog.job(id: job.id).runAt
            delays.append(runAt.timeIntervalSince(at(now)))
            now = runAt.timeIntervalSince(t0)
            // Not claimable before its run-at.
            #expect(try await claim(catalog, at: now - 0.01) == nil)
        }
        #expect(delays.count == 5)
        #expect(delays[0] >= 4 && delays[0] <= 6)
        for index in 1..<delays.count { #expect(delays[index] > delays[index - 1], "\(delays)") }
        // A provider's Retry-After longer than the backoff wins.
        let claimed = try #require(try await claim(catalog, at: now))
        _ = try await catalog.fail(claimed, error: "429", retryAfter: .seconds(7200), now: at(now))
        let failed = try await catalog.job(id: job.id)
        #expect(failed.runAt == at(now + 7200))
        #expect(failed.lastError == "429")
        #expect(failed.state == .failed)
    }

    @Test(arguments: StoreBackend.available) func deadAfterMaxAttemptsOrAtOnceWhenPermanent(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
        let job = try await catalog.enqueue(JobDraft(kind: "k", maxAttempts: 3)).job
        var states: [JobState] = []
        var now = 0.0
        for _ in 1...3 {
            let claimed = try #require(try await claim(catalog, at: now))
            states.append(try await catalog.fail(claimed, error: "boom", retryAfter: nil, now: at(now)))
            now += 100_000
        }
        #expect(states == [.failed, .failed, .dead])
        let dead = try await catalog.job(id: job.id)
        #expect(dead.attempts == 3)
        #expect(dead.finishedAt != nil)
        #expect(try await claim(catalog, at: now) == nil)

        let poisoned = try await catalog.enqueue(JobDraft(kind: "k")).job
        let claimed = try #require(try await claim(catalog, at: now))
        #expect(
            try await catalog.fail(claimed, error: "not audio", retryAfter: nil, permanent: true, policy: .default, now: at(now)) == .dead)
        #expect(try await catalog.job(id: poisoned.id).attempts == 1)
    }

    @Test(arguments: StoreBackend.available) func anExpiredLeaseOnTheLastAttemptMakesTheJobDead(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
        let job = try await catalog.enqueue(JobDraft(kind: "k", maxAttempts: 2)).job
        _ = try #require(try await claim(catalog, at: 0, lease: .seconds(1)))
        #expect(try await catalog.requeueExpiredLeases(now: at(2)) == 1)
        _ = try #require(try await claim(catalog, at: 3, lease: .seconds(1)))
        #expect(try await catalog.requeueExpiredLeases(now: at(5)) == 1)
        let dead = try await catalog.job(id: job.id)
        #expect(dead.state == .dead)
        #expect(dead.lastError?.contains("last attempt") == true)
    }

    @Test(arguments: StoreBackend.available) func leasesOfAGoneProcessAreRequeuedWithoutWaitingForExpiry(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
        for _ in 0..<3 { _ = try await catalog.enqueue(JobDraft(kind: "k")) }
        let gone = try #require(try await claim(catalog, worker: "host/1/1"))
        let alsoGone = try #require(try await claim(catalog, worker: "host/1/2"))
        let alive = try #require(try await claim(catalog, worker: "host/10/1"))
        #expect(try await catalog.requeueLeases(heldBy: "host/1", now: at(1)) == 2)
        #expect(try await catalog.job(id: gone.job.id).state == .queued)
        #expect(try await catalog.job(id: alsoGone.job.id).lastError?.contains("host/1/2 was abandoned") == true)
        #expect(try await catalog.job(id: alive.job.id).state == .running)
        #expect(try await catalog.complete([JobCompletion(claim: gone, result: nil)], now: at(2)) == [false])
    }

    @Test(arguments: StoreBackend.available) func releaseGivesTheJobBackWithoutCountingTheAttempt(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
        let job = try await catalog.enqueue(JobDraft(kind: "k")).job
        let claimed = try #require(try await claim(catalog))
        #expect(try await catalog.release(claimed, now: at(1)))
        let released = try await catalog.job(id: job.id)
        #expect(released.state == .queued)
        #expect(released.attempts == 0)
        #expect(released.lastError == nil)
        #expect(released.leaseOwner == nil)
        #expect(try await catalog.release(claimed, now: at(1)) == false)
        let again = try #require(try await claim(catalog, at: 2))
        #expect(again.job.attempts == 1)
        #expect(again.token > claimed.token)
    }

    @Test(arguments: StoreBackend.available) func retryAndCancelRules(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
        let job = try await catalog.enqueue(JobDraft(kind: "k", maxAttempts: 1, uniqueKey: "u")).job
        // queued → cancelled; cancelling twice is a conflict.
        #expect(try await catalog.cancelJob(id: job.id, now: at(1)).state == .cancelled)
        await expectConflict({ _ = try await catalog.cancelJob(id: job.id, now: at(1)) }, containing: "cancelled already")
        // The unique key is free once cancelled.
        let other = try await catalog.enqueue(JobDraft(kind: "k", uniqueKey: "u"))
        #expect(other.isNew)
        await expectConflict({ _ = try await catalog.retryJob(id: job.id, now: at(2)) }, containing: "holds the unique key")
        _ = try await catalog.cancelJob(id: other.job.id, now: at(2))
        let retried = try await catalog.retryJob(id: job.id, now: at(3))
        #expect(retried.state == .queued)
        #expect(retried.attempts == 0)
        #expect(retried.finishedAt == nil)
        // running: neither retry nor cancel.
        let claimed = try #require(try await claim(catalog, at: 3))
        #expect(claimed.job.id == job.id)
        await expectConflict({ _ = try await catalog.cancelJob(id: job.id, now: at(4)) }, containing: "finish or fail on its own")
        await expectConflict({ _ = try await catalog.retryJob(id: job.id, now: at(4)) }, containing: "is running")
        // dead → retry → queued with attempts reset.
        #expect(try await catalog.fail(claimed, error: "boom", retryAfter: nil, now: at(5)) == .dead)
        let revived = try await catalog.retryJob(id: job.id, now: at(6))
        #expect(revived.state == .queued)
        #expect(revived.attempts == 0)
        #expect(revived.runAt == at(6))
        // succeeded → retry runs it again.
        let rerun = try #require(try await claim(catalog, at: 6))
        #expect(try await catalog.complete([JobCompletion(claim: rerun, result: nil)], now: at(7)) == [true])
        await expectConflict({ _ = try await catalog.cancelJob(id: job.id, now: at(8)) }, containing: "job \(job.id) already succeeded; nothing to cancel")
        #expect(try await catalog.retryJob(id: job.id, now: at(8)).state == .queued)
        // a failed job (waiting for its retry) can be cancelled.
        let flaky = try await catalog.enqueue(JobDraft(kind: "flaky", maxAttempts: 3)).job
        let flakyClaim = try #require(try await claim(catalog, at: 9, kinds: ["flaky"]))
        _ = try await catalog.fail(flakyClaim, error: "boom", retryAfter: nil, now: at(9))
        #expect(try await catalog.cancelJob(id: flaky.id, now: at(10)).state == .cancelled)

        await #expect(throws: StoreError.notFound(entity: "job", reference: "999")) { _ = try await catalog.job(id: 999) }
        await #expect(throws: StoreError.notFound(entity: "job", reference: "999")) { _ = try await catalog.retryJob(id: 999, now: at(0)) }
        await #expect(throws: StoreError.notFound(entity: "job", reference: "999")) { _ = try await catalog.cancelJob(id: 999, now: at(0)) }
    }

    @Test(arguments: StoreBackend.available) func aScheduledFireTimeIsEnqueuedOnce(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
        let draft = JobDraft(kind: "revalidate", uniqueKey: "schedule:revalidate")
        let first = try #require(try await catalog.enqueueScheduled(draft, schedule: "schedule:revalidate", fireTime: at(0)))
        #expect(first.isNew)
        #expect(try await catalog.enqueueScheduled(draft, schedule: "schedule:revalidate", fireTime: at(0)) == nil)
        // The next fire time while the first run is live finds that run.
        #expect(try await catalog.enqueueScheduled(draft, schedule: "schedule:revalidate", fireTime: at(60)) == .alreadyLive(first.job))
        #expect(try await catalog.enqueueScheduled(draft, schedule: "schedule:other", fireTime: at(0)) != nil)
        #expect(try await catalog.jobs(state: nil, kind: "revalidate", afterID: nil, limit: 10).count == 1)
    }

    @Test(arguments: StoreBackend.available) func listsFilterByStateAndKindAndPage(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
        for index in 0..<10 { _ = try await catalog.enqueue(JobDraft(kind: index.isMultiple(of: 2) ? "even" : "odd")) }
        _ = try await claim(catalog, kinds: ["odd"])
        #expect(try await catalog.jobs(state: nil, kind: "even", afterID: nil, limit: 100).count == 5)
        #expect(try await catalog.jobs(state: .running, kind: nil, afterID: nil, limit: 100).map(\.kind) == ["odd"])
        let firstPage = try await catalog.jobs(state: nil, kind: nil, afterID: nil, limit: 4)
        let secondPage = try await catalog.jobs(state: nil, kind: nil, afterID: firstPage.last?.id, limit: 4)
        #expect(firstPage.map(\.id) + secondPage.map(\.id) == Array(1...8))
        #expect(try await catalog.statistics().queueDepth == 10)
    }
}
