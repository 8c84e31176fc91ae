import Foundation
import StenoCore

/// The durable job queue, in the catalog database: a job survives a crash or restart of the
/// daemon and runs at least once.
///
/// Claims are atomic in the database (one `UPDATE … RETURNING` in SQLite; `FOR UPDATE SKIP
/// LOCKED` in a PostgreSQL implementation), so several daemons may share one queue. Every
/// claim carries a fencing token, strictly increasing per job: once a lease expired and the
/// job was claimed again, the old worker's `complete`, `fail` and `heartbeat` are refused.
public protocol JobQueueStore: Sendable {
    /// Enqueues drafts in one transaction: a draft whose unique key a live job holds — or an
    /// earlier draft of the same call — adds nothing and is `.alreadyLive`. Returns one result
    /// per draft, in order.
    ///
    /// - Throws: `StoreError.invalid` for an empty kind, a payload that is not JSON, or
    ///   `maxAttempts` below 1 (then nothing is enqueued).
    func enqueue(_ drafts: [JobDraft]) async throws -> [EnqueueResult]

    /// Claims due jobs (`queued` or `failed` with `runAt <= now`) in one atomic step: the most
    /// urgent one — by priority (highest first), then run-at, then id — and with it the next
    /// due jobs of the same kind and priority, in claim order, up to `limits[kind]` (1 when
    /// absent). Each claim has its own fencing token. Empty when nothing is due.
    ///
    /// - Parameter kinds: only these kinds (the ones this worker has handlers for); nil for any.
    func claim(
        workerID: String, kinds: Set<String>?, limits: [String: Int], leaseDuration: Duration, now: Date
    ) async throws -> [ClaimedJob]

    /// Extends the leases of claims to `now + extendBy` in one transaction. Returns the ids of
    /// the jobs whose lease is still held; the others were lost (expired and taken over,
    /// released, or finished), and their workers should stop.
    func heartbeat(_ claims: [ClaimedJob], extendBy: Duration, now: Date) async throws -> Set<Int64>

    /// Sets the progress text of claimed jobs still `running` under these claims (a stale claim
    /// changes nothing), in one statement. Returns the ids of the jobs whose text was set.
    func setProgress(_ text: String?, of claims: [ClaimedJob], now: Date) async throws -> Set<Int64>

    /// Marks claimed jobs `succeeded` with their results in one transaction, each fenced by its
    /// own token: a completion whose claim is stale is rejected (its job untouched) while the
    /// others are recorded. Returns, in order, whether each completion was recorded.
    ///
    /// - Throws: `StoreError.invalid` when a result is not JSON (then nothing is recorded).
    func complete(_ completions: [JobCompletion], now: Date) async throws -> [Bool]

    /// Records a failed attempt: `failed` with `runAt = now + max(backoff, retryAfter)`, or
    /// `dead` after the last attempt or when `permanent`. Returns the new state.
    ///
    /// - Throws: `StoreError.conflict` when the claim's token is stale.
    func fail(
        _ claim: ClaimedJob, error: String, retryAfter: Duration?, permanent: Bool, policy: RetryPolicy, now: Date
    ) async throws -> JobState

    /// Gives a claimed job back without counting the attempt or recording an error (graceful
    /// shutdown). False when the claim was stale already.
    @discardableResult
    func release(_ claim: ClaimedJob, now: Date) async throws -> Bool

    /// Requeues `running` jobs whose lease ran out (their worker crashed or stalled); a job
    /// that used its last attempt becomes `dead`. Returns how many jobs changed.
    func requeueExpiredLeases(now: Date) async throws -> Int

    /// Requeues `running` jobs leased by workers whose id starts with `ownerPrefix` + `/`,
    /// whatever their expiry: a daemon that finds at start-up that the process which held
    /// them is gone (`host/pid` of a dead pid) need not wait for the leases to run out. Jobs on
    /// their last attempt become `dead`, as with expired leases. Returns how many changed.
    func requeueLeases(heldBy ownerPrefix: String, now: Date) async throws -> Int

    /// Jobs ordered by id, after `afterID`, optionally of one state and kind.
    func jobs(state: JobState?, kind: String?, afterID: Int64?, limit: Int) async throws -> [Job]

    /// Jobs newest first (by id, highest first), before `beforeID`, optionally of one state and kind.
    func newestJobs(state: JobState?, kind: String?, beforeID: Int64?, limit: Int) async throws -> [Job]

    /// One job. Throws `StoreError.notFound`.
    func job(id: Int64) async throws -> Job

    /// Queues a finished, failed, dead or cancelled job again, now, with its attempts reset;
    /// a queued job is just made due now.
    ///
    /// - Throws: `.notFound`; `.conflict` when it is running, or when another live job holds
    ///   its unique key.
    func retryJob(id: Int64, now: Date) async throws -> Job

    /// Cancels a queued or failed job.
    ///
    /// A running job cannot be cancelled (`.conflict`): its worker holds a lease and will
    /// finish or fail on its own; cancel it afterwards if it is retried. Finished jobs are a
    /// conflict too. Throws `.notFound` for an unknown id.
    func cancelJob(id: Int64, now: Date) async throws -> Job
}

extension JobQueueStore {
    /// Enqueues one job, or returns the live job holding the draft's unique key.
    ///
    /// - Throws: `StoreError.invalid` for a bad draft.
    public func enqueue(_ draft: JobDraft) async throws -> EnqueueResult {
        guard let result = try await enqueue([draft]).first else {
            throw StoreError.failedPrecondition("the store returned no result for an enqueued job")
        }
        return result
    }

    /// Records a failed attempt with the default retry policy.
    public func fail(_ claim: ClaimedJob, error: String, retryAfter: Duration?, now: Date) async throws -> JobState {
        try await fail(claim, error: error, retryAfter: retryAfter, permanent: false, policy: .default, now: now)
    }
}

/// What `enqueue` did.
public enum EnqueueResult: Sendable, Hashable {
    /// A new job.
    case enqueued(Job)
    /// A live job with the same unique key exists; nothing was added.
    case alreadyLive(Job)

    /// The job, new or existing.
    public var job: Job {
        switch self {
        case .enqueued(let job), .alreadyLive(let job): return job
        }
    }

    /// Whether a new job was added.
    public var isNew: Bool {
        if case .enqueued = self { return true }
        return false
    }
}

/// A job as claimed by one worker, with the fencing token of this claim.
public struct ClaimedJob: Sendable, Hashable {
    /// The job as it was right after the claim (`running`, attempts counted).
    public var job: Job
    /// The fencing token: only the holder of the current token may finish the job.
    public var token: Int64

    /// A claim as the store hands it out.
    public init(job: Job, token: Int64) {
        self.job = job
        self.token = token
    }
}

/// A claimed job's successful end, as `JobQueueStore.complete(_:now:)` records it.
public struct JobCompletion: Sendable, Hashable {
    /// The claim being finished; its fencing token is checked.
    public var claim: ClaimedJob
    /// The handler's result, JSON text (nil for none).
    public var result: String?

    /// A completion of `claim` with `result`.
    public init(claim: ClaimedJob, result: String?) {
        self.claim = claim
        self.result = result
    }
}
