import StenoCore
import StenoStore

/// A handler that runs many jobs of its kind together, so a busy queue spends one database
/// write on many jobs (e.g. ingesting a folder of thousands of files).
///
/// The pool claims up to `maxBatchSize` due jobs of the kind in one atomic step (each with its
/// own fencing token), renews their leases together while `runBatch` works, and records the
/// outcomes the handler leaves to it. A handler may also store an outcome and complete the
/// job in one transaction of its own — fenced by the claim's token — and report it `.recorded`.
/// Execution stays at-least-once: a batch cut short by a crash runs again job by job.
public protocol BatchJobHandler: JobHandler {
    /// The most jobs claimed for one `runBatch` (1 turns batching off).
    var maxBatchSize: Int { get }

    /// Runs the claimed jobs; returns one outcome per claim, in the order given. The claims
    /// all have this handler's kind. Should return soon after its task is cancelled.
    func runBatch(_ claims: [ClaimedJob], context: JobContext) async -> [BatchItemOutcome]
}

/// How one job of a batch ended.
public enum BatchItemOutcome: Sendable {
    /// The handler stored the outcome and completed the job itself, with the claim's token
    /// checked in the same transaction (or found the claim stale and wrote nothing).
    case recorded
    /// The pool records it, as it would the outcome of `JobHandler.run`.
    case finished(Result<JobOutcome, any Error>)
}
