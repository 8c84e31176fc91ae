import Logging
import StenoCore

/// Runs the jobs of one kind.
///
/// Execution is at-least-once: a job whose worker crashed, stalled or shut down runs again, so
/// a handler must be idempotent (ingest the same file twice → one recording). A handler should
/// return soon after its task is cancelled (graceful shutdown past the grace period, or a lost
/// lease); its job is then released or taken over and its outcome ignored.
public protocol JobHandler: Sendable {
    /// The job kind handled, e.g. `system.noop`.
    var kind: String { get }

    /// Does the work.
    ///
    /// - Returns: `.succeeded` with an optional JSON result, or `.retry` to try again later
    ///   (a provider's Retry-After).
    /// - Throws: `JobError.permanent` when retrying cannot help (the job becomes `dead` at once);
    ///   any other error is a failed attempt, retried with exponential backoff.
    func run(_ job: Job, context: JobContext) async throws -> JobOutcome
}

/// How an attempt ended, when it did not throw.
public enum JobOutcome: Sendable, Hashable {
    /// Done; `result` is JSON text stored with the job (nil for none).
    case succeeded(result: String?)
    /// Not done; try again no sooner than `after` (the backoff may make it later). Counts as
    /// a failed attempt, so a job that keeps asking is `dead` after its last attempt.
    case retry(after: Duration, reason: String)
}

/// Errors with a meaning to the worker pool.
public enum JobError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Retrying cannot help (malformed payload, the file is not audio…): the job is `dead` at once.
    case permanent(String)

    /// The reason, as recorded in the job's `lastError`.
    public var description: String {
        switch self {
        case .permanent(let reason): return reason
        }
    }
}

/// What a handler gets besides its job.
public struct JobContext: Sendable {
    /// A logger with the job's id, kind and attempt as metadata.
    public var logger: Logger
    /// The id of the worker running the job (`host/pid/n`).
    public var workerID: String

    /// A context for one attempt.
    public init(logger: Logger, workerID: String) {
        self.logger = logger
        self.workerID = workerID
    }

    /// True once the handler should stop: the daemon is shutting down past its grace period,
    /// or the lease was lost to another worker. Long loops should check it (or rely on
    /// `Task.checkCancellation()`, which is equivalent).
    public var isCancelled: Bool { Task.isCancelled }
}
