import Foundation
import StenoCore

/// The rules of the job queue that do not depend on the database: what a valid draft is, what
/// a failed attempt becomes, when a job may be retried or cancelled, and the errors a caller
/// sees. Every catalog applies them, so the queue behaves the same on SQLite and PostgreSQL.
package enum JobQueueRules {
    /// The columns a job row is read from, in the order ``job(_:)`` expects (the same names
    /// on every backend).
    package static let columns = """
        id, kind, payload, state, priority, attempts, max_attempts, run_at, lease_owner, lease_expires_at, last_error,
        unique_key, result, created_at, updated_at, finished_at, progress
        """

    /// The job a row of ``columns`` holds, from its raw values (instants in milliseconds); an
    /// error stored before redaction existed is redacted on the way out.
    package static func job(
        id: Int64, kind: String, payload: String, state: String, priority: Int, attempts: Int, maxAttempts: Int, runAt: Int64,
        leaseOwner: String?, leaseExpiresAt: Int64?, lastError: String?, uniqueKey: String?, result: String?,
        createdAt: Int64, updatedAt: Int64, finishedAt: Int64?, progress: String?
    ) throws -> Job {
        guard let jobState = JobState(rawValue: state) else {
            throw StoreError.invalid("job \(id) has an unknown state \"\(state)\"")
        }
        let date = CatalogTime.date(milliseconds:)
        return Job(
            id: id, kind: kind, payload: payload, state: jobState, priority: priority, attempts: attempts, maxAttempts: maxAttempts,
            runAt: date(runAt), leaseOwner: leaseOwner, leaseExpiresAt: leaseExpiresAt.map(date),
            lastError: lastError.map(CredentialRedaction.redacted), uniqueKey: uniqueKey, result: result,
            createdAt: date(createdAt), updatedAt: date(updatedAt), finishedAt: finishedAt.map(date), progress: progress)
    }

    /// A draft's kind (trimmed) and attempts, or `StoreError.invalid`.
    package static func checked(_ draft: JobDraft) throws -> (kind: String, maxAttempts: Int) {
        let kind = draft.kind.trimmingCharacters(in: .whitespaces)
        guard !kind.isEmpty else { throw StoreError.invalid("a job needs a kind") }
        let maxAttempts = draft.maxAttempts ?? JobDraft.defaultMaxAttempts
        guard maxAttempts >= 1 else { throw StoreError.invalid("maxAttempts must be at least 1, got \(maxAttempts)") }
        return (kind, maxAttempts)
    }

    /// A payload or result that is not JSON.
    package static func notJSON(_ text: String, what: String) -> StoreError {
        .invalid("the job \(what) is not valid JSON: \(text.prefix(80))")
    }

    /// The refusal of a write by a claim whose token is no longer the job's.
    package static func staleLease(_ claim: ClaimedJob) -> StoreError {
        .conflict(
            "stale lease on job \(claim.job.id) (token \(claim.token)): the lease expired and the job was requeued or taken over by another worker")
    }

    /// What a failed attempt makes of its job.
    package struct Failure {
        /// `failed`, or `dead` after the last attempt or a permanent failure.
        package var state: JobState
        /// When a `failed` job may run again (milliseconds); a dead job keeps its run-at.
        package var retryAt: Int64
        /// The error as stored (credentials redacted).
        package var error: String

        package var isDead: Bool { state == .dead }
    }

    /// The end of a failed attempt of `claim`. The claim's attempt count is current: while its
    /// token matches, nobody else claimed the job.
    package static func failure(
        of claim: ClaimedJob, error: String, retryAfter: Duration?, permanent: Bool, policy: RetryPolicy, now: Date
    ) -> Failure {
        let isLast = permanent || claim.job.attempts >= claim.job.maxAttempts
        var random = SystemRandomNumberGenerator()
        let backoff = policy.delay(afterAttempt: claim.job.attempts, random: &random)
        let delay = max(backoff, retryAfter ?? .zero)
        return Failure(
            state: isLast ? .dead : .failed, retryAt: CatalogTime.milliseconds(now) + CatalogTime.milliseconds(delay),
            error: CredentialRedaction.redacted(error))
    }

    /// What retrying a job does.
    package enum Retry: Equatable {
        /// A queued job is only made due now.
        case makeDue
        /// A finished job is queued again with its attempts reset; when it has a unique key
        /// that another live job may hold, the key is given to check first.
        case requeue(uniqueKey: String?)
    }

    /// How `job` is retried, or `.conflict` when it is running.
    package static func retry(_ job: Job) throws -> Retry {
        switch job.state {
        case .running:
            throw StoreError.conflict("job \(job.id) is running; wait until it finishes or fails")
        case .queued:
            return .makeDue
        case .failed:
            // A failed job is live: it holds its key itself.
            return .requeue(uniqueKey: nil)
        case .dead, .cancelled, .succeeded:
            return .requeue(uniqueKey: job.uniqueKey)
        }
    }

    /// The refusal to retry a job whose unique key another live job holds.
    package static func uniqueKeyHeld(_ key: String, by holder: Int64?) -> StoreError {
        .conflict("\(holder.map { "job \($0)" } ?? "another live job") holds the unique key \"\(key)\" already; retry that one instead")
    }

    /// Throws `.conflict` unless `job` is queued or failed (the states a cancel applies to).
    package static func checkCancellable(_ job: Job) throws {
        switch job.state {
        case .queued, .failed:
            return
        case .running:
            throw StoreError.conflict("job \(job.id) is running; it will finish or fail on its own (cancel it afterwards if it is retried)")
        case .succeeded:
            throw StoreError.conflict("job \(job.id) already succeeded; nothing to cancel")
        case .dead:
            throw StoreError.conflict("job \(job.id) already gave up (dead); nothing to cancel")
        case .cancelled:
            throw StoreError.conflict("job \(job.id) is cancelled already")
        }
    }
}
