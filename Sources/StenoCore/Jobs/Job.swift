import Foundation

/// One unit of background work in the durable job queue (ingest a file, link a recording,
/// sync a calendar account, revalidate links).
///
/// A job is at-least-once: a worker that crashes or stalls loses its lease and the job runs
/// again, so handlers must be idempotent. The catalog database holds the queue, so a job
/// enqueued in the same transaction as the change that caused it is never lost.
public struct Job: Sendable, Hashable, Codable, Identifiable {
    /// Stable numeric identifier assigned by the catalog.
    public var id: Int64
    /// What to do, e.g. `ingest` or `system.noop`; selects the handler.
    public var kind: String
    /// The handler's input as JSON text (kept as text so the core needs no JSON codec).
    public var payload: String
    /// Where the job is in its life cycle.
    public var state: JobState
    /// Higher runs first (interactive requests before bulk rescans).
    public var priority: Int
    /// Claims so far, the running one included.
    public var attempts: Int
    /// After this many failed attempts the job is `dead`.
    public var maxAttempts: Int
    /// Not claimed before this instant (the retry time of a `failed` job).
    public var runAt: Date
    /// The worker holding the lease of a `running` job.
    public var leaseOwner: String?
    /// When the lease of a `running` job runs out unless renewed by a heartbeat.
    public var leaseExpiresAt: Date?
    /// The error of the last failed attempt.
    public var lastError: String?
    /// At most one live (queued, failed or running) job per key, e.g. `ingest:alice/a.m4a`.
    public var uniqueKey: String?
    /// The handler's result as JSON text, once succeeded.
    public var result: String?
    /// When the job was enqueued.
    public var createdAt: Date
    /// When the job last changed.
    public var updatedAt: Date
    /// When the job reached a final state (succeeded, dead, cancelled).
    public var finishedAt: Date?
    /// What the running attempt last said it is doing (e.g. "fetching calendar history: 2 of
    /// 5 spans"); cleared when an attempt is claimed.
    public var progress: String?

    /// Creates a job value; the catalog is what assigns ids and states.
    public init(
        id: Int64, kind: String, payload: String = "{}", state: JobState = .queued, priority: Int = 0, attempts: Int = 0,
        maxAttempts: Int = JobDraft.defaultMaxAttempts, runAt: Date, leaseOwner: String? = nil, leaseExpiresAt: Date? = nil,
        lastError: String? = nil, uniqueKey: String? = nil, result: String? = nil, createdAt: Date, updatedAt: Date,
        finishedAt: Date? = nil, progress: String? = nil
    ) {
        self.id = id
        self.kind = kind
        self.payload = payload
        self.state = state
        self.priority = priority
        self.attempts = attempts
        self.maxAttempts = maxAttempts
        self.runAt = runAt
        self.leaseOwner = leaseOwner
        self.leaseExpiresAt = leaseExpiresAt
        self.lastError = lastError
        self.uniqueKey = uniqueKey
        self.result = result
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.finishedAt = finishedAt
        self.progress = progress
    }
}

/// The life cycle of a job.
///
/// `queued` → `running` → `succeeded`; a failed attempt goes to `failed` (waiting for its
/// retry time, then claimable again) or to `dead` after the last attempt. `cancelled` is an
/// admin's decision. `dead`, `failed`, `cancelled` and `succeeded` jobs can be retried.
public enum JobState: String, Sendable, Hashable, Codable, CaseIterable {
    /// Waiting to be claimed.
    case queued
    /// Claimed by a worker holding a lease.
    case running
    /// Finished; `result` holds the handler's output.
    case succeeded
    /// An attempt failed; claimable again at `runAt`.
    case failed
    /// Failed `maxAttempts` times (or permanently); waits for an admin's retry.
    case dead
    /// Cancelled by an admin before it ran.
    case cancelled

    /// Queued, waiting for a retry, or running: the states a unique key is held in.
    public var isLive: Bool { self == .queued || self == .failed || self == .running }
}

/// A job to enqueue.
public struct JobDraft: Sendable, Hashable, Codable {
    /// The attempts a job gets when neither the draft nor the configuration says otherwise.
    public static let defaultMaxAttempts = 5

    /// What to do; selects the handler.
    public var kind: String
    /// The handler's input as JSON text.
    public var payload: String
    /// Higher runs first.
    public var priority: Int
    /// Attempts before the job is `dead`; nil takes the queue's default (`[jobs] max_attempts`).
    public var maxAttempts: Int?
    /// Not before this instant; nil means now.
    public var runAt: Date?
    /// At most one live job per key; enqueuing while one is live returns that one.
    public var uniqueKey: String?

    /// Describes a job to enqueue.
    public init(
        kind: String, payload: String = "{}", priority: Int = 0, maxAttempts: Int? = nil, runAt: Date? = nil,
        uniqueKey: String? = nil
    ) {
        self.kind = kind
        self.payload = payload
        self.priority = priority
        self.maxAttempts = maxAttempts
        self.runAt = runAt
        self.uniqueKey = uniqueKey
    }
}

/// Common priorities: interactive requests jump ahead of bulk work.
public enum JobPriority {
    /// Something a person is waiting for (an RPC request).
    public static let interactive = 100
    /// Ordinary background work.
    public static let normal = 0
    /// Rescans and other bulk work.
    public static let bulk = -100
}
