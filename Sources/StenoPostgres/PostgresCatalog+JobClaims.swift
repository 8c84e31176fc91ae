import Foundation
import PostgresNIO
import StenoCatalog
import StenoCore

/// The life of a claim: claiming due jobs, renewing their leases, completing, failing or
/// releasing them, and rescuing the jobs of workers that crashed or stalled.
///
/// Several daemons claim from one table. A claim locks the rows it takes with `FOR UPDATE
/// SKIP LOCKED`, so concurrent claimers pass each other's rows by instead of waiting or taking
/// them twice. Every write that finishes a claim is fenced by its token (`lease_token`,
/// strictly increasing per job, as each claim increments it under the row lock): once a lease
/// expired and the job was claimed again, the old worker's writes match no row and are refused.
extension PostgresCatalog {
    public func claim(
        workerID: String, kinds: Set<String>?, limits: [String: Int], leaseDuration: Duration, now: Date
    ) async throws -> [ClaimedJob] {
        let nowMilliseconds = Self.milliseconds(now)
        let rows = try await rows(
            prepared: ClaimStatementText.self,
            Self.claimStatement(
                workerID: workerID, kinds: kinds, limits: limits, nowMilliseconds: nowMilliseconds,
                expires: nowMilliseconds + CatalogTime.milliseconds(leaseDuration)))
        let claimed = try rows.map { ClaimedJob(job: try Self.job($0), token: try $0.makeRandomAccess()[Self.jobColumnCount].decode(Int64.self)) }
        // RETURNING does not promise an order: hand the claims out in claim order.
        return claimed.sorted { ($0.job.runAt, $0.job.id) < ($1.job.runAt, $1.job.id) }
    }

    /// The statement of ``claim(workerID:kinds:limits:leaseDuration:now:)``: it returns the
    /// claimed jobs' rows with their new token after the job's columns.
    static func claimStatement(
        workerID: String, kinds: Set<String>?, limits: [String: Int], nowMilliseconds: Int64, expires: Int64
    ) -> PostgresQuery {
        let kindList = kinds.map { $0.sorted() }
        let batchKinds = limits.keys.sorted()
        let batchSizes = batchKinds.map { Int64(max(1, limits[$0] ?? 1)) }
        // One statement, so one round trip per claim. The most urgent due job (`head`) decides
        // the kind and priority of the claim, so jobs claimed together never run ahead of a more
        // urgent job of another kind or priority. Locked until commit: another daemon's claim
        // skips it. It is the first of its kind and priority and locked by this statement (which
        // its own lock does not skip), so it is in the batch. Materialized: each locking
        // subquery runs once, so the limit holds. `= ANY(ARRAY(…))`: the planner cannot tell
        // how many ids `picked` gives, and with `IN` it may hash them and scan the whole table.
        return """
            WITH head AS MATERIALIZED (
                SELECT kind, priority FROM jobs
                WHERE state IN ('queued', 'failed') AND run_at <= \(nowMilliseconds)
                  AND (\(kindList)::text[] IS NULL OR kind = ANY(\(kindList)::text[]))
                ORDER BY priority DESC, run_at, id LIMIT 1
                FOR UPDATE SKIP LOCKED
            ), picked AS MATERIALIZED (
                SELECT id FROM jobs
                WHERE state IN ('queued', 'failed') AND run_at <= \(nowMilliseconds)
                  AND kind = (SELECT kind FROM head) AND priority = (SELECT priority FROM head)
                ORDER BY run_at, id
                LIMIT (SELECT COALESCE(
                    (SELECT batch.size FROM unnest(\(batchKinds)::text[], \(batchSizes)::bigint[]) AS batch (kind, size), head
                     WHERE batch.kind = head.kind), 1))
                FOR UPDATE SKIP LOCKED
            )
            UPDATE jobs SET state = 'running', attempts = attempts + 1, progress = NULL, lease_token = COALESCE(lease_token, 0) + 1,
                lease_owner = \(workerID), lease_expires_at = \(expires), updated_at = \(nowMilliseconds)
            WHERE id = ANY(ARRAY(SELECT id FROM picked))
            RETURNING \(unescaped: JobQueueRules.columns), lease_token
            """
    }

    public func heartbeat(_ claims: [ClaimedJob], extendBy: Duration, now: Date) async throws -> Set<Int64> {
        guard !claims.isEmpty else { return [] }
        let nowMilliseconds = Self.milliseconds(now)
        return try await updateRunning(claims, setting: "lease_expires_at = $3, updated_at = $4") { values in
            values.append(nowMilliseconds + CatalogTime.milliseconds(extendBy))
            values.append(nowMilliseconds)
        }
    }

    public func setProgress(_ text: String?, of claims: [ClaimedJob], now: Date) async throws -> Set<Int64> {
        guard !claims.isEmpty else { return [] }
        return try await updateRunning(claims, setting: "progress = $3") { $0.append(text) }
    }

    /// One statement setting `assignments` (binds from `$3`, appended by `values`) on the jobs still
    /// running under these claims; the ids changed. The rows are locked in id order first, as
    /// every statement locking several jobs does: in the plan's order, a heartbeat and its
    /// batch's commit (``heldLeases(_:in:)``) deadlocked.
    private func updateRunning(
        _ claims: [ClaimedJob], setting assignments: String, values: (inout PostgresBindings) -> Void
    ) async throws -> Set<Int64> {
        var binds = PostgresBindings()
        binds.append(claims.map(\.job.id))
        binds.append(claims.map(\.token))
        values(&binds)
        let rows = try await rows(
            PostgresQuery(
                unsafeSQL: """
                    WITH locked AS (
                        SELECT jobs.id FROM jobs
                        JOIN unnest($1::bigint[], $2::bigint[]) AS claim (id, token) ON jobs.id = claim.id AND jobs.lease_token = claim.token
                        WHERE jobs.state = 'running' ORDER BY jobs.id FOR UPDATE OF jobs)
                    UPDATE jobs SET \(assignments)
                    FROM locked WHERE jobs.id = locked.id
                    RETURNING jobs.id
                    """, binds: binds))
        return Set(try rows.map { try $0.decode(Int64.self) })
    }

    public func complete(_ completions: [JobCompletion], now: Date) async throws -> [Bool] {
        guard !completions.isEmpty else { return [] }
        for completion in completions {
            if let result = completion.result { try Self.requireJSON(result, what: "result") }
        }
        // One statement for all of them: every completion recorded, or none.
        let completed = try await rows(
            prepared: CompletionStatementText.self, Self.completion(completions, nowMilliseconds: Self.milliseconds(now)))
        return Self.recorded(completions, completedIDs: Set(try completed.map { try $0.decode(Int64.self) }))
    }

    public func fail(
        _ claim: ClaimedJob, error: String, retryAfter: Duration?, permanent: Bool, policy: RetryPolicy, now: Date
    ) async throws -> JobState {
        let nowMilliseconds = Self.milliseconds(now)
        let failure = JobQueueRules.failure(of: claim, error: error, retryAfter: retryAfter, permanent: permanent, policy: policy, now: now)
        let changed = try await row(
            """
            UPDATE jobs SET state = \(failure.state.rawValue), last_error = \(failure.error),
                run_at = CASE WHEN \(failure.isDead) THEN run_at ELSE \(failure.retryAt) END,
                lease_owner = NULL, lease_expires_at = NULL, finished_at = \(failure.isDead ? nowMilliseconds : nil)::bigint,
                updated_at = \(nowMilliseconds)
            WHERE id = \(claim.job.id) AND lease_token = \(claim.token) AND state = 'running'
            RETURNING id
            """)
        guard changed != nil else { throw JobQueueRules.staleLease(claim) }
        return failure.state
    }

    @discardableResult
    public func release(_ claim: ClaimedJob, now: Date) async throws -> Bool {
        let nowMilliseconds = Self.milliseconds(now)
        return try await transaction { tx in
            guard
                try await tx.row(
                    """
                    UPDATE jobs SET state = 'queued', attempts = GREATEST(0, attempts - 1), lease_owner = NULL,
                        lease_expires_at = NULL, updated_at = \(nowMilliseconds)
                    WHERE id = \(claim.job.id) AND lease_token = \(claim.token) AND state = 'running'
                    RETURNING id
                    """) != nil
            else { return false }
            // Given back by a daemon that stops: another one's idle workers may take it.
            try await Self.notifyJobArrival(tx)
            return true
        }
    }

    public func requeueExpiredLeases(now: Date) async throws -> Int {
        try await requeueLeases(expiredAt: Self.milliseconds(now), ownerPrefix: nil, why: "expired", now: now)
    }

    public func requeueLeases(heldBy ownerPrefix: String, now: Date) async throws -> Int {
        try await requeueLeases(expiredAt: nil, ownerPrefix: ownerPrefix + "/", why: "was abandoned", now: now)
    }

    /// Requeues the running jobs whose lease expired by `expiredAt` or whose owner starts with
    /// `ownerPrefix` (a prefix, not a pattern: it may hold `%` or `_`); a job on its last
    /// attempt becomes `dead` instead, so a job that kills its worker every time cannot loop.
    /// One update, so a job is requeued or made dead once even when daemons race.
    private func requeueLeases(expiredAt: Int64?, ownerPrefix: String?, why: String, now: Date) async throws -> Int {
        let nowMilliseconds = Self.milliseconds(now)
        // Every SET expression reads the row as it was, so `attempts >= max_attempts` decides
        // each column alike.
        return try await transaction { tx in
            let requeued = try await tx.rows(
                """
                UPDATE jobs SET
                    state = CASE WHEN attempts >= max_attempts THEN 'dead' ELSE 'queued' END,
                    last_error = 'the lease of ' || COALESCE(lease_owner, '?') || ' ' || \(why)::text
                        || CASE WHEN attempts >= max_attempts THEN ' on the last attempt' ELSE '' END || ' (worker crashed or stalled)',
                    finished_at = CASE WHEN attempts >= max_attempts THEN \(nowMilliseconds) ELSE finished_at END,
                    run_at = CASE WHEN attempts >= max_attempts THEN run_at ELSE LEAST(run_at, \(nowMilliseconds)) END,
                    lease_owner = NULL, lease_expires_at = NULL, updated_at = \(nowMilliseconds)
                WHERE state = 'running'
                  AND ((\(expiredAt)::bigint IS NOT NULL AND lease_expires_at <= \(expiredAt)::bigint)
                       OR (\(ownerPrefix)::text IS NOT NULL AND starts_with(lease_owner, \(ownerPrefix)::text)))
                RETURNING id
                """
                ).count
            // Claimable again (for jobs made dead, a notification only makes idle workers look).
            if requeued > 0 { try await Self.notifyJobArrival(tx) }
            return requeued
        }
    }
}

extension PostgresCatalog {
    /// One statement marking every claimed job whose token is current `succeeded` with its
    /// result; it returns the ids of the jobs it completed (a stale claim changes nothing). The
    /// results are not checked.
    static func completion(_ completions: [JobCompletion], nowMilliseconds: Int64) -> PostgresQuery {
        // Arrays of optionals do not bind: a result, and whether there is one.
        let results = completions.map { $0.result ?? "" }, hasResults = completions.map { $0.result != nil }
        // Locked in id order first, like every statement locking several jobs (see heartbeat).
        return """
            WITH done AS (
                SELECT jobs.id, given.result, given.has_result FROM jobs
                JOIN unnest(\(completions.map(\.claim.job.id))::bigint[], \(completions.map(\.claim.token))::bigint[], \(results)::text[],
                            \(hasResults)::boolean[]) AS given (id, token, result, has_result)
                    ON jobs.id = given.id AND jobs.lease_token = given.token
                WHERE jobs.state = 'running' ORDER BY jobs.id FOR UPDATE OF jobs)
            UPDATE jobs SET state = 'succeeded', result = CASE WHEN done.has_result THEN done.result END, lease_owner = NULL,
                lease_expires_at = NULL, finished_at = \(nowMilliseconds), updated_at = \(nowMilliseconds)
            FROM done WHERE jobs.id = done.id
            RETURNING jobs.id
            """
    }

    /// Whether each completion was recorded, given the ids ``completion(_:nowMilliseconds:)``
    /// completed: a claim given twice counts once, as the second of two completions one after
    /// the other would find the job finished.
    static func recorded(_ completions: [JobCompletion], completedIDs: Set<Int64>) -> [Bool] {
        var unclaimed = completedIDs
        return completions.map { unclaimed.remove($0.claim.job.id) != nil }
    }

    /// The claims whose token is still their job's current one, locking those jobs' rows (in id
    /// order, so two daemons never wait for each other) until the caller's transaction ends: no
    /// requeue or claim of another daemon can take a job between this check and the caller's
    /// completion of it. One statement for all of them.
    static func heldLeases(_ claims: [ClaimedJob], in tx: PostgresTransaction) async throws -> Set<Int64> {
        guard !claims.isEmpty else { return [] }
        let rows = try await tx.rows(
            """
            SELECT jobs.id FROM jobs
            JOIN unnest(\(claims.map(\.job.id))::bigint[], \(claims.map(\.token))::bigint[]) AS held (id, token)
                ON jobs.id = held.id AND jobs.lease_token = held.token
            WHERE jobs.state = 'running' ORDER BY jobs.id FOR UPDATE OF jobs
            """)
        return Set(try rows.map { try $0.decode(Int64.self) })
    }
}
