import Foundation
import GRDB
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
        try await writer.read { db in
            var conditions = ["id > ?"]
            var arguments: StatementArguments = [afterID ?? 0]
            if let state {
                conditions.append("state = ?")
                arguments += [state.rawValue]
            }
            if let kind {
                conditions.append("kind = ?")
                arguments += [kind]
            }
            return try Self.fetchJobs(db, whereSQL: conditions.joined(separator: " AND "), arguments: arguments, limit: limit)
        }
    }

    public func job(id: Int64) async throws -> Job {
        try await writer.read { db in try Self.requireJob(db, id: id) }
    }

    public func retryJob(id: Int64, now: Date) async throws -> Job {
        let nowMilliseconds = Self.milliseconds(now)
        return try await writer.write { db in
            let job = try Self.requireJob(db, id: id)
            switch job.state {
            case .running:
                throw StoreError.conflict("job \(id) is running; wait until it finishes or fails")
            case .queued:
                try db.execute(sql: "UPDATE jobs SET run_at = MIN(run_at, ?1), updated_at = ?1 WHERE id = ?2", arguments: [nowMilliseconds, id])
            case .failed, .dead, .cancelled, .succeeded:
                if let key = job.uniqueKey, job.state != .failed,
                    let holder = try Int64.fetchOne(
                        db, sql: "SELECT id FROM jobs WHERE unique_key = ? AND state IN ('queued', 'running', 'failed') AND id != ?",
                        arguments: [key, id])
                {
                    throw StoreError.conflict("job \(holder) holds the unique key \"\(key)\" already; retry that one instead")
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
            let job = try Self.requireJob(db, id: id)
            switch job.state {
            case .queued, .failed:
                try db.execute(
                    sql: "UPDATE jobs SET state = 'cancelled', finished_at = ?1, updated_at = ?1 WHERE id = ?2",
                    arguments: [nowMilliseconds, id])
                return try Self.requireJob(db, id: id)
            case .running:
                throw StoreError.conflict("job \(id) is running; it will finish or fail on its own (cancel it afterwards if it is retried)")
            case .succeeded, .dead, .cancelled:
                throw StoreError.conflict("job \(id) is \(job.state.rawValue) already; nothing to cancel")
            }
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
        let kind = draft.kind.trimmingCharacters(in: .whitespaces)
        guard !kind.isEmpty else { throw StoreError.invalid("a job needs a kind") }
        let maxAttempts = draft.maxAttempts ?? JobDraft.defaultMaxAttempts
        guard maxAttempts >= 1 else { throw StoreError.invalid("maxAttempts must be at least 1, got \(maxAttempts)") }
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
    static let jobColumns = """
        id, kind, payload, state, priority, attempts, max_attempts, run_at, lease_owner, lease_expires_at, last_error,
        unique_key, result, created_at, updated_at, finished_at
        """

    /// A job from a row of `jobColumns`, read by position (no name lookups: claims and
    /// enqueues decode thousands of these).
    static func job(_ row: Row) throws -> Job {
        let stateName: String = row[3]
        guard let state = JobState(rawValue: stateName) else {
            throw StoreError.invalid("job \(row[0] as Int64) has an unknown state \"\(stateName)\"")
        }
        let leaseExpires: Int64? = row[9]
        let finished: Int64? = row[15]
        return Job(
            id: row[0], kind: row[1], payload: row[2], state: state, priority: row[4], attempts: row[5], maxAttempts: row[6],
            runAt: date(milliseconds: row[7]), leaseOwner: row[8], leaseExpiresAt: leaseExpires.map { date(milliseconds: $0) },
            lastError: (row[10] as String?).map(CredentialRedaction.redacted), uniqueKey: row[11], result: row[12], createdAt: date(milliseconds: row[13]),
            updatedAt: date(milliseconds: row[14]), finishedAt: finished.map { date(milliseconds: $0) })
    }

    static func fetchJobs(_ db: Database, whereSQL: String, arguments: StatementArguments, limit: Int? = nil) throws -> [Job] {
        var sql = "SELECT \(jobColumns) FROM jobs WHERE \(whereSQL) ORDER BY id"
        if let limit { sql += " LIMIT \(max(0, limit))" }
        return try Row.fetchAll(db, sql: sql, arguments: arguments).map(job)
    }

    static func requireJob(_ db: Database, id: Int64) throws -> Job {
        guard let found = try fetchJobs(db, whereSQL: "id = ?", arguments: [id]).first else {
            throw StoreError.notFound(entity: "job", reference: String(id))
        }
        return found
    }

    static func staleLease(_ claim: ClaimedJob) -> StoreError {
        .conflict(
            "stale lease on job \(claim.job.id) (token \(claim.token)): the lease expired and the job was requeued or taken over by another worker")
    }

    /// Checks JSON text with SQLite's own parser, so the store needs no JSON codec.
    static func requireJSON(_ text: String, in db: Database, what: String) throws {
        let statement = try db.cachedStatement(sql: "SELECT json_valid(?)")
        guard try Bool.fetchOne(statement, arguments: [text]) == true else {
            throw StoreError.invalid("the job \(what) is not valid JSON: \(text.prefix(80))")
        }
    }

    /// Whole milliseconds of a duration (negative durations count as zero).
    static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return max(0, seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    }
}
