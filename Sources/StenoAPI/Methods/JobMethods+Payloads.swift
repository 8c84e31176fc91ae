import Foundation
import StenoCore

extension StenoMethods {
    // MARK: jobs.*

    /// Lists jobs by id, a page at a time, optionally of one state and kind. Any known user.
    public static let jobsList = RPCMethodDescriptor<JobListParams, Page<Job>>("jobs.list")
    /// One job. Any known user.
    public static let jobsGet = RPCMethodDescriptor<JobIDParams, Job>("jobs.get")
    /// Queues a dead, failed, cancelled or succeeded job again with its attempts reset (admin).
    public static let jobsRetry = RPCMethodDescriptor<JobIDParams, Job>("jobs.retry")
    /// Cancels a queued or failed job (admin); a running job is a conflict.
    public static let jobsCancel = RPCMethodDescriptor<JobIDParams, Job>("jobs.cancel")
    /// Enqueues a job of a kind this daemon runs (admin): diagnostics (`system.noop`) and
    /// operator-triggered work.
    public static let jobsEnqueue = RPCMethodDescriptor<JobEnqueueParams, JobEnqueueResult>("jobs.enqueue")
}

/// Params of `jobs.list`.
public struct JobListParams: Codable, Sendable, Hashable {
    /// Only jobs in this state.
    public var state: JobState?
    /// Only jobs of this kind.
    public var kind: String?
    /// true: the newest (highest id) first; default false: the oldest first.
    public var newestFirst: Bool?
    /// The `nextCursor` of the previous page; nil for the first page.
    public var cursor: String?
    /// Items per page, 1…1000 (default 100).
    public var limit: Int?

    /// Creates the params; nil fields are left out.
    public init(state: JobState? = nil, kind: String? = nil, newestFirst: Bool? = nil, cursor: String? = nil, limit: Int? = nil) {
        self.newestFirst = newestFirst
        self.state = state
        self.kind = kind
        self.cursor = cursor
        self.limit = limit
    }
}

/// Names one job.
public struct JobIDParams: Codable, Sendable, Hashable {
    /// The job's id.
    public var id: Int64

    /// Creates the params; nil fields are left out.
    public init(id: Int64) { self.id = id }
}

/// Params of `jobs.enqueue`.
public struct JobEnqueueParams: Codable, Sendable, Hashable {
    /// The job kind; the daemon must have a handler for it.
    public var kind: String
    /// The payload, a JSON object (`{}` when absent).
    public var payload: JSONValue?
    /// Higher runs first (default 0).
    public var priority: Int?
    /// Attempts before `dead` (default: the daemon's `[jobs] max_attempts`).
    public var maxAttempts: Int?
    /// Not before this instant (default: now).
    public var runAt: Date?
    /// At most one live job per key.
    public var uniqueKey: String?

    /// Creates the params; nil fields are left out.
    public init(
        kind: String, payload: JSONValue? = nil, priority: Int? = nil, maxAttempts: Int? = nil, runAt: Date? = nil,
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

/// What `jobs.enqueue` did.
public struct JobEnqueueResult: Codable, Sendable, Hashable {
    /// The new job, or the live one holding the unique key.
    public var job: Job
    /// True when a live job with the same unique key existed and nothing was added.
    public var alreadyLive: Bool

    /// Creates the params; nil fields are left out.
    public init(job: Job, alreadyLive: Bool) {
        self.job = job
        self.alreadyLive = alreadyLive
    }
}
