import Foundation
import GRDB
import StenoCore

/// The batch operations of the job queue: one write transaction for many jobs, with the
/// guarantees of the one-job methods (unique keys, atomic claims, a fencing token per job).
extension SQLiteCatalog {
    public func enqueue(_ drafts: [JobDraft]) async throws -> [EnqueueResult] {
        guard !drafts.isEmpty else { return [] }
        return try await writer.write { db in
            let now = Date()
            // An earlier draft of the batch is live by the time a later one is looked at, so a
            // repeated unique key is `.alreadyLive` like it would be one transaction later.
            return try drafts.map { try Self.enqueue($0, in: db, now: now) }
        }
    }

    public func claim(
        workerID: String, kinds: Set<String>?, batchLimits: [String: Int], leaseDuration: Duration, now: Date
    ) async throws -> [ClaimedJob] {
        let nowMilliseconds = Self.milliseconds(now)
        let expires = nowMilliseconds + Self.milliseconds(leaseDuration)
        return try await writer.write { db in
            // The most urgent due job decides the kind and priority of the batch, so a batch
            // never runs ahead of a more urgent job of another kind or priority.
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
            let limit = max(1, batchLimits[kind] ?? 1)
            // One statement, as in `claim`: SQLite runs writes one at a time, so no two claimers
            // get the same row. The head is the first of its kind and priority, so it is in.
            let statement = try db.cachedStatement(
                sql: """
                    UPDATE jobs SET state = 'running', attempts = attempts + 1,
                        lease_token = COALESCE(lease_token, 0) + 1, lease_owner = ?, lease_expires_at = ?, updated_at = ?
                    WHERE id IN (SELECT id FROM jobs INDEXED BY jobs_claim
                                 WHERE state IN ('queued', 'failed') AND run_at <= ? AND kind = ? AND priority = ?
                                 ORDER BY priority DESC, run_at, id LIMIT ?)
                    RETURNING \(Self.jobColumns), lease_token
                    """)
            let rows = try Row.fetchAll(
                statement, arguments: [workerID, expires, nowMilliseconds, nowMilliseconds, kind, priority, limit])
            // RETURNING does not promise an order: hand the claims out in claim order.
            return try rows.map { ClaimedJob(job: try Self.job($0), token: $0[16]) }
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
