import Foundation
import GRDB
import StenoCatalog
import StenoCore

/// The life of a claim: claiming due jobs, renewing their leases, completing, failing or
/// releasing them, and rescuing the jobs of workers that crashed or stalled.
///
/// Every write that finishes a claim is fenced by its token (`lease_token`, strictly
/// increasing per job): once a lease expired and the job was claimed again, the old worker's
/// writes match no row and are refused.
extension SQLiteCatalog {
    public func claim(
        workerID: String, kinds: Set<String>?, limits: [String: Int], leaseDuration: Duration, now: Date
    ) async throws -> [ClaimedJob] {
        let nowMilliseconds = Self.milliseconds(now)
        let expires = nowMilliseconds + Self.milliseconds(leaseDuration)
        return try await writer.write { db in
            // `jobs_claim` walks due jobs in claim order; without ANALYZE statistics SQLite would
            // rather sort every live job on each claim (~9 ms at 20k queued, vs µs).
            // The most urgent due job decides the kind and priority of the claim, so jobs claimed
            // together never run ahead of a more urgent job of another kind or priority.
            let filter = kinds == nil ? "" : "AND kind IN (SELECT value FROM json_each(?))"
            let head = try db.cachedStatement(
                sql: """
                    SELECT kind, priority FROM jobs INDEXED BY jobs_claim
                    WHERE state IN ('queued', 'failed') AND run_at <= ? \(filter)
                    ORDER BY priority DESC, run_at, id LIMIT 1
                    """)
            var headArguments: StatementArguments = [nowMilliseconds]
            if let kinds { headArguments += [Self.jsonArray(kinds.sorted())] }
            guard let first = try Row.fetchOne(head, arguments: headArguments) else { return [] }
            let kind: String = first["kind"]
            let priority: Int = first["priority"]
            let limit = max(1, limits[kind] ?? 1)
            // One statement: SQLite runs writes one at a time, so no two claimers get the same
            // row. The token grows per job, so an older claim's token is always smaller. The
            // head is the first of its kind and priority, so it is in.
            let statement = try db.cachedStatement(
                sql: """
                    UPDATE jobs SET state = 'running', attempts = attempts + 1, progress = NULL,
                        lease_token = COALESCE(lease_token, 0) + 1, lease_owner = ?, lease_expires_at = ?, updated_at = ?
                    WHERE id IN (SELECT id FROM jobs INDEXED BY jobs_claim
                                 WHERE state IN ('queued', 'failed') AND run_at <= ? AND kind = ? AND priority = ?
                                 ORDER BY priority DESC, run_at, id LIMIT ?)
                    RETURNING \(Self.jobColumns), lease_token
                    """)
            let rows = try Row.fetchAll(
                statement, arguments: [workerID, expires, nowMilliseconds, nowMilliseconds, kind, priority, limit])
            // RETURNING does not promise an order: hand the claims out in claim order.
            return try rows.map { ClaimedJob(job: try Self.job($0), token: $0[17]) }
                .sorted { ($0.job.runAt, $0.job.id) < ($1.job.runAt, $1.job.id) }
        }
    }

    public func heartbeat(_ claims: [ClaimedJob], extendBy: Duration, now: Date) async throws -> Set<Int64> {
        guard !claims.isEmpty else { return [] }
        let nowMilliseconds = Self.milliseconds(now)
        let expires = nowMilliseconds + Self.milliseconds(extendBy)
        return try await writer.write { db in
            let statement = try db.cachedStatement(
                sql: """
                    UPDATE jobs SET lease_expires_at = ?, updated_at = ?
                    WHERE id = ? AND lease_token = ? AND state = 'running'
                    """)
            var held = Set<Int64>()
            for claim in claims {
                try statement.execute(arguments: [expires, nowMilliseconds, claim.job.id, claim.token])
                if db.changesCount > 0 { held.insert(claim.job.id) }
            }
            return held
        }
    }

    public func setProgress(_ text: String?, of claims: [ClaimedJob], now: Date) async throws -> Set<Int64> {
        guard !claims.isEmpty else { return [] }
        return try await writer.write { db in
            let statement = try db.cachedStatement(
                sql: "UPDATE jobs SET progress = ? WHERE id = ? AND lease_token = ? AND state = 'running'")
            var set = Set<Int64>()
            for claim in claims {
                try statement.execute(arguments: [text, claim.job.id, claim.token])
                if db.changesCount > 0 { set.insert(claim.job.id) }
            }
            return set
        }
    }

    public func complete(_ completions: [JobCompletion], now: Date) async throws -> [Bool] {
        guard !completions.isEmpty else { return [] }
        let nowMilliseconds = Self.milliseconds(now)
        return try await writer.write { db in
            for completion in completions {
                if let result = completion.result { try Self.requireJSON(result, in: db, what: "result") }
            }
            return try completions.map {
                try Self.completeClaim($0.claim, result: $0.result, nowMilliseconds: nowMilliseconds, in: db)
            }
        }
    }
    public func fail(
        _ claim: ClaimedJob, error: String, retryAfter: Duration?, permanent: Bool, policy: RetryPolicy, now: Date
    ) async throws -> JobState {
        let nowMilliseconds = Self.milliseconds(now)
        let failure = JobQueueRules.failure(of: claim, error: error, retryAfter: retryAfter, permanent: permanent, policy: policy, now: now)
        try await writer.write { db in
            let statement = try db.cachedStatement(
                sql: """
                    UPDATE jobs SET state = ?, last_error = ?, run_at = CASE WHEN ? THEN run_at ELSE ? END,
                        lease_owner = NULL, lease_expires_at = NULL, finished_at = ?, updated_at = ?
                    WHERE id = ? AND lease_token = ? AND state = 'running'
                    """)
            try statement.execute(arguments: [
                failure.state.rawValue, failure.error, failure.isDead, failure.retryAt,
                failure.isDead ? nowMilliseconds : nil, nowMilliseconds, claim.job.id, claim.token,
            ])
            if db.changesCount == 0 { throw Self.staleLease(claim) }
        }
        return failure.state
    }

    @discardableResult
    public func release(_ claim: ClaimedJob, now: Date) async throws -> Bool {
        try await writer.write { db in
            try db.execute(
                sql: """
                    UPDATE jobs SET state = 'queued', attempts = MAX(0, attempts - 1), lease_owner = NULL,
                        lease_expires_at = NULL, updated_at = ?
                    WHERE id = ? AND lease_token = ? AND state = 'running'
                    """,
                arguments: [Self.milliseconds(now), claim.job.id, claim.token])
            return db.changesCount > 0
        }
    }

    public func requeueExpiredLeases(now: Date) async throws -> Int {
        try await writer.write { db in
            try Self.requeueLeases(db, matching: "lease_expires_at <= ?2", argument: Self.milliseconds(now), now: now, why: "expired")
        }
    }

    public func requeueLeases(heldBy ownerPrefix: String, now: Date) async throws -> Int {
        // substr rather than LIKE: a prefix may hold `%` or `_`.
        try await writer.write { db in
            try Self.requeueLeases(
                db, matching: "substr(lease_owner, 1, length(?2)) = ?2", argument: ownerPrefix + "/", now: now,
                why: "was abandoned")
        }
    }

    /// Requeues the running jobs matching `condition` (which reads `?2`); a job on its last
    /// attempt becomes `dead` instead, so a job that kills its worker every time cannot loop.
    static func requeueLeases(
        _ db: Database, matching condition: String, argument: any DatabaseValueConvertible, now: Date, why: String
    ) throws -> Int {
        let nowMilliseconds = milliseconds(now)
        try db.execute(
            sql: """
                UPDATE jobs SET state = 'dead',
                    last_error = 'the lease of ' || COALESCE(lease_owner, '?') || ' \(why) on the last attempt (worker crashed or stalled)',
                    lease_owner = NULL, lease_expires_at = NULL, finished_at = ?1, updated_at = ?1
                WHERE state = 'running' AND \(condition) AND attempts >= max_attempts
                """,
            arguments: [nowMilliseconds, argument])
        var changed = db.changesCount
        try db.execute(
            sql: """
                UPDATE jobs SET state = 'queued',
                    last_error = 'the lease of ' || COALESCE(lease_owner, '?') || ' \(why) (worker crashed or stalled)',
                    lease_owner = NULL, lease_expires_at = NULL, run_at = MIN(run_at, ?1), updated_at = ?1
                WHERE state = 'running' AND \(condition)
                """,
            arguments: [nowMilliseconds, argument])
        changed += db.changesCount
        return changed
    }
}

extension SQLiteCatalog {
    /// Marks a claimed job `succeeded` inside the caller's transaction when its token is
    /// current; false (and nothing changed) when the claim is stale. The result is not checked.
    static func completeClaim(_ claim: ClaimedJob, result: String?, nowMilliseconds: Int64, in db: Database) throws -> Bool {
        let statement = try db.cachedStatement(
            sql: """
                UPDATE jobs SET state = 'succeeded', result = ?, lease_owner = NULL, lease_expires_at = NULL,
                    finished_at = ?, updated_at = ?
                WHERE id = ? AND lease_token = ? AND state = 'running'
                """)
        try statement.execute(arguments: [result, nowMilliseconds, nowMilliseconds, claim.job.id, claim.token])
        return db.changesCount > 0
    }

    /// Whether a claim's token is still the job's current one, inside the caller's transaction
    /// (which no other claim can interleave with).
    static func holdsLease(_ claim: ClaimedJob, in db: Database) throws -> Bool {
        let statement = try db.cachedStatement(
            sql: "SELECT 1 FROM jobs WHERE id = ? AND lease_token = ? AND state = 'running'")
        return try Bool.fetchOne(statement, arguments: [claim.job.id, claim.token]) ?? false
    }
}
