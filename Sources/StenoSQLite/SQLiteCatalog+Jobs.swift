import Foundation
import GRDB
import StenoCatalog
import StenoCore

/// Enqueueing, listing, retrying and cancelling jobs; the life of a claim is in
/// `SQLiteCatalog+JobClaims.swift`.
extension SQLiteCatalog {
    public func enqueue(_ drafts: [JobDraft]) async throws -> [EnqueueResult] {
        guard !drafts.isEmpty else { return [] }
        return try await writer.write { db in
            let now = Date()
            // An earlier draft of the call is live by the time a later one is looked at, so a
            // repeated unique key is `.alreadyLive` like it would be one transaction later.
            return try drafts.map { try Self.enqueue($0, in: db, now: now) }
        }
    }

    public func jobs(state: JobState?, kind: String?, afterID: Int64?, limit: Int) async throws -> [Job] {
        try await listJobs(state: state, kind: kind, idCondition: "id > ?", bound: afterID ?? 0, limit: limit, newestFirst: false)
    }

    public func newestJobs(state: JobState?, kind: String?, beforeID: Int64?, limit: Int) async throws -> [Job] {
        try await listJobs(state: state, kind: kind, idCondition: "id < ?", bound: beforeID ?? Int64.max, limit: limit, newestFirst: true)
    }

    /// A page of jobs past `bound` in id order, optionally of one state and kind.
    private func listJobs(
        state: JobState?, kind: String?, idCondition: String, bound: Int64, limit: Int, newestFirst: Bool
    ) async throws -> [Job] {
        try await writer.read { db in
            var conditions = [idCondition]
            var arguments: StatementArguments = [bound]
            if let state {
                conditions.append("state = ?")
                arguments += [state.rawValue]
            }
            if let kind {
                conditions.append("kind = ?")
                arguments += [kind]
            }
            return try Self.fetchJobs(
                db, whereSQL: conditions.joined(separator: " AND "), arguments: arguments, limit: limit, newestFirst: newestFirst)
        }
    }

    public func job(id: Int64) async throws -> Job {
        try await writer.read { db in try Self.requireJob(db, id: id) }
    }

    public func retryJob(id: Int64, now: Date) async throws -> Job {
        let nowMilliseconds = Self.milliseconds(now)
        return try await writer.write { db in
            let job = try Self.requireJob(db, id: id)
            switch try JobQueueRules.retry(job) {
            case .makeDue:
                try db.execute(sql: "UPDATE jobs SET run_at = MIN(run_at, ?1), updated_at = ?1 WHERE id = ?2", arguments: [nowMilliseconds, id])
            case .requeue(let key):
                if let key,
                    let holder = try Int64.fetchOne(
                        db, sql: "SELECT id FROM jobs WHERE unique_key = ? AND state IN ('queued', 'running', 'failed') AND id != ?",
                        arguments: [key, id])
                {
                    throw JobQueueRules.uniqueKeyHeld(key, by: holder)
                }
                try db.execute(
                    sql: """
                        UPDATE jobs SET state = 'queued', attempts = 0, run_at = ?1, finished_at = NULL, result = NULL,
                            lease_owner = NULL, lease_expires_at = NULL, updated_at = ?1
                        WHERE id = ?2
                        """,
                    arguments: [nowMilliseconds, id])
            }
            return try Self.requireJob(db, id: id)
        }
    }

    public func cancelJob(id: Int64, now: Date) async throws -> Job {
        let nowMilliseconds = Self.milliseconds(now)
        return try await writer.write { db in
            try JobQueueRules.checkCancellable(try Self.requireJob(db, id: id))
            try db.execute(
                sql: "UPDATE jobs SET state = 'cancelled', finished_at = ?1, updated_at = ?1 WHERE id = ?2",
                arguments: [nowMilliseconds, id])
            return try Self.requireJob(db, id: id)
        }
    }
}

// MARK: - Enqueueing inside another write

extension SQLiteCatalog {
    /// Enqueues a job inside the caller's write transaction, so the job exists exactly when the
    /// caller's own changes do (e.g. a recording and the job that links it).
    ///
    /// - Throws: `StoreError.invalid` for a bad draft.
    static func enqueue(_ draft: JobDraft, in db: Database, now: Date = Date()) throws -> EnqueueResult {
        let (kind, maxAttempts) = try JobQueueRules.checked(draft)
        let nowMilliseconds = milliseconds(now)
        // One statement in the common case: the insert checks the payload and, through the
        // partial unique index `jobs_unique_live`, the unique key. Cached: the watcher enqueues
        // thousands of these in a row.
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO jobs (kind, payload, state, priority, attempts, max_attempts, run_at, unique_key, created_at, updated_at)
                SELECT ?1, ?2, 'queued', ?3, 0, ?4, ?5, ?6, ?7, ?7 WHERE json_valid(?2)
                ON CONFLICT DO NOTHING
                RETURNING \(jobColumns)
                """)
        let arguments: StatementArguments = [
            kind, draft.payload, draft.priority, maxAttempts, draft.runAt.map(milliseconds) ?? nowMilliseconds,
            draft.uniqueKey, nowMilliseconds,
        ]
        if let row = try Row.fetchOne(statement, arguments: arguments) { return .enqueued(try job(row)) }
        // Nothing inserted: a bad payload, or a live job holding the key.
        try requireJSON(draft.payload, in: db, what: "payload")
        if let key = draft.uniqueKey,
            let row = try Row.fetchOne(
                db.cachedStatement(
                    sql: "SELECT \(jobColumns) FROM jobs WHERE unique_key = ? AND state IN ('queued', 'running', 'failed') ORDER BY id LIMIT 1"),
                arguments: [key])
        {
            return .alreadyLive(try job(row))
        }
        throw StoreError.failedPrecondition("the job insert returned no row and no live job holds its key")
    }
}

// MARK: - Rows

extension SQLiteCatalog {
    /// The columns `job(_:)` reads, in a fixed order.
    static let jobColumns = JobQueueRules.columns

    /// A job from a row of `jobColumns`, read by position (no name lookups: claims and
    /// enqueues decode thousands of these).
    static func job(_ row: Row) throws -> Job {
        try JobQueueRules.job(
            id: row[0], kind: row[1], payload: row[2], state: row[3], priority: row[4], attempts: row[5], maxAttempts: row[6],
            runAt: row[7], leaseOwner: row[8], leaseExpiresAt: row[9], lastError: row[10], uniqueKey: row[11], result: row[12],
            createdAt: row[13], updatedAt: row[14], finishedAt: row[15], progress: row[16])
    }

    static func fetchJobs(
        _ db: Database, whereSQL: String, arguments: StatementArguments, limit: Int? = nil, newestFirst: Bool = false
    ) throws -> [Job] {
        var sql = "SELECT \(jobColumns) FROM jobs WHERE \(whereSQL) ORDER BY id\(newestFirst ? " DESC" : "")"
        if let limit { sql += " LIMIT \(max(0, limit))" }
        return try Row.fetchAll(db, sql: sql, arguments: arguments).map(job)
    }

    static func requireJob(_ db: Database, id: Int64) throws -> Job {
        guard let found = try fetchJobs(db, whereSQL: "id = ?", arguments: [id]).first else {
            throw StoreError.notFound(entity: "job", reference: String(id))
        }
        return found
    }

    static func staleLease(_ claim: ClaimedJob) -> StoreError { JobQueueRules.staleLease(claim) }

    /// Checks JSON text with SQLite's own parser, so the store needs no JSON codec.
    static func requireJSON(_ text: String, in db: Database, what: String) throws {
        let statement = try db.cachedStatement(sql: "SELECT json_valid(?)")
        guard try Bool.fetchOne(statement, arguments: [text]) == true else {
            throw JobQueueRules.notJSON(text, what: what)
        }
    }

    /// Whole milliseconds of a duration (negative durations count as zero).
    static func milliseconds(_ duration: Duration) -> Int64 { CatalogTime.milliseconds(duration) }
}
