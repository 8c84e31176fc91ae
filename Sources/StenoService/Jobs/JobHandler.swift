import Logging
import StenoCatalog
import StenoCore

/// Runs the jobs of one kind, a batch of claimed jobs at a time (a single job is a batch of one).
///
/// The pool claims up to `maxBatchSize` due jobs of the kind in one atomic step (each with its
/// own fencing token), decodes their payloads, renews their leases together while `run` works,
/// and records the outcomes: completions in one transaction, failures and retries job by job.
///
/// Execution is at-least-once: a job whose worker crashed, stalled or shut down runs again, so
/// a handler must be idempotent (ingest the same file twice → one recording). A handler should
/// return soon after its task is cancelled (graceful shutdown past the grace period, or every
/// lease lost); its jobs are then released or taken over and its outcomes ignored.
public protocol JobHandler<Kind>: Sendable {
    /// The kind of job handled, with its payload and result types.
    associatedtype Kind: JobKind

    /// The most jobs claimed for one `run`; 1 (the default) runs jobs one at a time.
    var maxBatchSize: Int { get }

    /// Runs claimed jobs of this kind; returns one outcome per job, in the order given.
    ///
    /// - Throws: an error that ends every job of the batch: `JobError.permanent` when retrying
    ///   cannot help (the jobs become `dead` at once); any other error is a failed attempt,
    ///   retried with exponential backoff.
    func run(_ attempts: [JobAttempt<Kind>], context: JobContext) async throws -> [JobOutcome<Kind.Result>]
}

extension JobHandler {
    /// One job at a time.
    public var maxBatchSize: Int { 1 }

    /// The job kind handled, e.g. `system.noop`.
    public static var kind: String { Kind.name }

    /// The job kind handled, e.g. `system.noop`.
    public var kind: String { Kind.name }
}

/// How one job's attempt ended.
public enum JobOutcome<Result: Sendable>: Sendable {
    /// Done, with the result stored with the job.
    case succeeded(Result)
    /// Not done; try again no sooner than `after` (the backoff may make it later). Counts as
    /// a failed attempt, so a job that keeps asking is `dead` after its last attempt.
    case retry(after: Duration, reason: String)
    /// Failed: `JobError.permanent` makes the job `dead` at once, any other error is retried
    /// with backoff.
    case failed(any Error)
    /// The handler stored the outcome and completed the job itself, with the claim's token
    /// checked in the same transaction (or found the claim stale and wrote nothing).
    case recorded
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

/// What a handler gets besides its jobs.
public struct JobContext: Sendable {
    /// A logger with the jobs' ids and kind as metadata.
    public var logger: Logger
    /// The id of the worker running the jobs (`host/pid/n`).
    public var workerID: String

    /// Where progress texts go; nil when nobody follows (a handler run by a test).
    let progress: JobProgressReporter?

    /// A context for one run.
    public init(logger: Logger, workerID: String) {
        self.init(logger: logger, workerID: workerID, progress: nil)
    }

    init(logger: Logger, workerID: String, progress: JobProgressReporter?) {
        self.logger = logger
        self.workerID = workerID
        self.progress = progress
    }

    /// Tells whoever follows the jobs (`steno ingest --wait`, `steno jobs show`) what the run
    /// is doing now, e.g. "linking 12 recordings". Cheap to call often: writes are coalesced.
    public func reportProgress(_ text: String) async {
        await progress?.report(text)
    }

    /// True once the handler should stop: the daemon is shutting down past its grace period,
    /// or every lease was lost to other workers. Long loops should check it (or rely on
    /// `Task.checkCancellation()`, which is equivalent).
    public var isCancelled: Bool { Task.isCancelled }
}

extension Array {
    /// Runs `body` for each attempt in turn, for handlers that run jobs one by one: an error
    /// thrown for one attempt is that job's `.failed` outcome, and the others still run.
    public func eachAttempt<Kind: JobKind>(
        _ body: (JobAttempt<Kind>) async throws -> JobOutcome<Kind.Result>
    ) async -> [JobOutcome<Kind.Result>] where Element == JobAttempt<Kind> {
        var outcomes: [JobOutcome<Kind.Result>] = []
        outcomes.reserveCapacity(count)
        for attempt in self {
            do {
                outcomes.append(try await body(attempt))
            } catch {
                outcomes.append(.failed(error))
            }
        }
        return outcomes
    }
}
