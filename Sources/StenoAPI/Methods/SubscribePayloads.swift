import Foundation
import StenoCore

extension StenoMethods {
    /// Follows jobs on this connection: a `jobs.changed` notification (params: the job) each
    /// time one changes state, attempt, run time or error, until every job has finished (or
    /// one attempt failed, with `untilFailedAttempt`, or the timeout passed); the result holds
    /// the jobs as they are then. Members may follow only the jobs they may see.
    public static let systemSubscribe = RPCMethodDescriptor<SubscribeParams, SubscribeResult>("system.subscribe")
    /// The notification `system.subscribe` sends.
    public static let jobsChangedNotification = "jobs.changed"
}

/// Params of `system.subscribe`.
public struct SubscribeParams: Codable, Sendable, Hashable {
    /// The jobs to follow.
    public var jobs: [Int64]
    /// Stop after this many seconds (default 600, at most 3600).
    public var timeoutSeconds: Double?
    /// Stop as soon as an attempt of any of the jobs fails (a new account's first sync).
    public var untilFailedAttempt: Bool?

    public init(jobs: [Int64], timeoutSeconds: Double? = nil, untilFailedAttempt: Bool? = nil) {
        self.jobs = jobs
        self.timeoutSeconds = timeoutSeconds
        self.untilFailedAttempt = untilFailedAttempt
    }
}

/// What `system.subscribe` ends with.
public struct SubscribeResult: Codable, Sendable, Hashable {
    /// The jobs as they were when it ended, by id.
    public var jobs: [Job]
    /// Why it ended: `finished` (every job succeeded, ended dead or was cancelled),
    /// `failed-attempt` or `timeout`.
    public var reason: String

    public init(jobs: [Job], reason: String) {
        self.jobs = jobs
        self.reason = reason
    }
}
