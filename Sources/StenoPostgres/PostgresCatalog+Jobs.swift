import Foundation
import PostgresNIO
import StenoCore
import StenoJSON
import StenoStore

/// Enqueueing, listing, retrying and cancelling jobs; the life of a claim is in
/// `PostgresCatalog+JobClaims.swift`. The rules (valid drafts, what may be retried or
/// cancelled, the errors) are `JobQueueRules`, shared with SQLite.
///
/// Several daemons enqueue into one table: the partial unique index `jobs_unique_live` is
/// what keeps one live job per unique key, and a job that changes state is locked first.
extension PostgresCatalog: JobQueueStore {
    public func enqueue(_ drafts: [JobDraft]) async throws -> [EnqueueResult] {
        guard !drafts.isEmpty else { return [] }
        let now = Date()
        return try await transaction { tx in
            // An earlier draft of the call is live by the time a later one is looked at, so a
            // repeated unique key is `.alreadyLive` like it would be one transaction later.
            var results: [EnqueueResult] = []
            for draft in drafts { results.append(try await Self.enqueue(draft, in: tx, now: now, notify: false)) }
            if results.contains(where: \.isNew) { try await Self.notifyJobArrival(tx) }
            return results
        }
    }

    public func jobs(state: JobState?, kind: String?, afterID: Int64?, limit: Int) async throws -> [Job] {
        try await rows(
            """
            SELECT \(unescaped: JobQueueRules.columns) FROM jobs
            WHERE id > \(afterID ?? 0) AND (\(state?.rawValue)::text IS NULL OR state = \(state?.rawValue)::text)
              AND (\(kind)::text IS NULL OR kind = \(kind)::text)
            ORDER BY id LIMIT \(max(0, limit))
            """
        ).map(Self.job)
    }

    public func job(id: Int64) async throws -> Job {
        guard let row = try await row("SELECT \(unescaped: JobQueueRules.columns) FROM jobs WHERE id = \(id)") else {
            throw StoreError.notFound(entity: "job", reference: String(id))
        }
        return try Self.job(row)
    }

    public func retryJob(id: Int64, now: Date) async throws -> Job {
        let nowMilliseconds = Self.milliseconds(now)
        return try await transaction { tx in
            // Locked: a claim, completion or cancel of another daemon waits for this retry.
            let job = try await Self.lockJob(id: id, in: tx)
            // Due now: idle workers of every daemon may take it.
            try await Self.notifyJobArrival(tx)
            switch try JobQueueRules.retry(job) {
            case .makeDue:
                return try Self.job(
                    try await Self.returnedRow(
                        tx,
                        """
                        UPDATE jobs SET run_at = LEAST(run_at, \(nowMilliseconds)), updated_at = \(nowMilliseconds)
                        WHERE id = \(id) RETURNING \(unescaped: JobQueueRules.columns)
                        """))
            case .requeue(let key):
                if let key,
                    let holder = try await tx.row(
                        "SELECT id FROM jobs WHERE unique_key = \(key) AND state IN ('queued', 'running', 'failed') AND id <> \(id)")
                {
                    throw JobQueueRules.uniqueKeyHeld(key, by: try holder.decode(Int64.self))
                }
                // Another daemon may enqueue the key between the check and this update; the
                // unique index then refuses the update, and the retry is a conflict as above.
                do {
                    return try Self.job(
                        try await Self.returnedRow(
                            tx,
                            """
                            UPDATE jobs SET state = 'queued', attempts = 0, run_at = \(nowMilliseconds), finished_at = NULL,
                                result = NULL, lease_owner = NULL, lease_expires_at = NULL, updated_at = \(nowMilliseconds)
                            WHERE id = \(id) RETURNING \(unescaped: JobQueueRules.columns)
                            """))
                } catch where Self.sqlState(error) == "23505" {
                    throw JobQueueRules.uniqueKeyHeld(key ?? "", by: nil)
                }
            }
        }
    }

    public func cancelJob(id: Int64, now: Date) async throws -> Job {
        let nowMilliseconds = Self.milliseconds(now)
        return try await transaction { tx in
            try JobQueueRules.checkCancellable(try await Self.lockJob(id: id, in: tx))
            return try Self.job(
                try await Self.returnedRow(
                    tx,
                    """
                    UPDATE jobs SET state = 'cancelled', finished_at = \(nowMilliseconds), updated_at = \(nowMilliseconds)
                    WHERE id = \(id) RETURNING \(unescaped: JobQueueRules.columns)
                    """))
        }
    }
}

// MARK: - Enqueueing inside another transaction

extension PostgresCatalog {
    /// Enqueues a job inside the caller's transaction, so the job exists exactly when the
    /// caller's own changes do (e.g. a recording and the job that links it).
    ///
    /// A job it adds notifies `steno_jobs` on commit, waking the idle workers of every daemon,
    /// unless `notify` is false (a caller enqueuing many notifies once).
    ///
    /// - Throws: `StoreError.invalid` for a bad draft.
    static func enqueue(_ draft: JobDraft, in tx: PostgresTransaction, now: Date, notify: Bool = true) async throws -> EnqueueResult {
        let (kind, maxAttempts) = try JobQueueRules.checked(draft)
        try requireJSON(draft.payload, what: "payload")
        let nowMilliseconds = milliseconds(now)
        let runAt = draft.runAt.map(milliseconds) ?? nowMilliseconds
        // A live job holding the key may finish between the insert that found it and the
        // select that reads it: then the key is free, and the insert is tried again.
        for _ in 0..<3 {
            // Through the partial unique index `jobs_unique_live`: a concurrent daemon's insert
            // of the same key makes this one wait for its commit, then do nothing.
            if let row = try await tx.row(
                """
                INSERT INTO jobs (kind, payload, state, priority, attempts, max_attempts, run_at, unique_key, created_at, updated_at)
                VALUES (\(kind), \(draft.payload), 'queued', \(draft.priority), 0, \(maxAttempts), \(runAt), \(draft.uniqueKey),
                        \(nowMilliseconds), \(nowMilliseconds))
                ON CONFLICT DO NOTHING
                RETURNING \(unescaped: JobQueueRules.columns)
                """)
            {
                if notify { try await notifyJobArrival(tx) }
                return .enqueued(try job(row))
            }
            guard let key = draft.uniqueKey else { break }
            if let row = try await tx.row(
                """
                SELECT \(unescaped: JobQueueRules.columns) FROM jobs
                WHERE unique_key = \(key) AND state IN ('queued', 'running', 'failed') ORDER BY id LIMIT 1
                """)
            {
                return .alreadyLive(try job(row))
            }
        }
        throw StoreError.failedPrecondition("the job insert returned no row and no live job holds its key")
    }
}

// MARK: - Rows

extension PostgresCatalog {
    /// A job from a row of `JobQueueRules.columns`, read by position.
    static func job(_ row: PostgresRow) throws -> Job {
        let cells = row.makeRandomAccess()
        return try JobQueueRules.job(
            id: cells[0].decode(Int64.self), kind: cells[1].decode(String.self), payload: cells[2].decode(String.self),
            state: cells[3].decode(String.self), priority: cells[4].decode(Int.self), attempts: cells[5].decode(Int.self),
            maxAttempts: cells[6].decode(Int.self), runAt: cells[7].decode(Int64.self), leaseOwner: cells[8].decode(String?.self),
            leaseExpiresAt: cells[9].decode(Int64?.self), lastError: cells[10].decode(String?.self),
            uniqueKey: cells[11].decode(String?.self), result: cells[12].decode(String?.self), createdAt: cells[13].decode(Int64.self),
            updatedAt: cells[14].decode(Int64.self), finishedAt: cells[15].decode(Int64?.self))
    }

    /// Locks a job's row for the rest of the transaction and reads it, or `.notFound`.
    static func lockJob(id: Int64, in tx: PostgresTransaction) async throws -> Job {
        guard let row = try await tx.row("SELECT \(unescaped: JobQueueRules.columns) FROM jobs WHERE id = \(id) FOR UPDATE") else {
            throw StoreError.notFound(entity: "job", reference: String(id))
        }
        return try job(row)
    }

    /// The row an `UPDATE … RETURNING` of a locked job gave back.
    static func returnedRow(_ tx: PostgresTransaction, _ query: PostgresQuery) async throws -> PostgresRow {
        guard let row = try await tx.row(query) else {
            throw StoreError.failedPrecondition("a locked job was not updated")
        }
        return row
    }

    /// Tells the daemons listening on `steno_jobs` (``watchJobArrivals(_:)``) that a job may
    /// be claimable, when the caller's transaction commits (the server sends one notification
    /// per transaction however often this is called).
    static func notifyJobArrival(_ tx: PostgresTransaction) async throws {
        try await tx.execute("SELECT pg_notify(\(jobArrivalChannel), '')")
    }

    /// Checks JSON text before it is stored (the columns are TEXT, kept byte for byte).
    static func requireJSON(_ text: String, what: String) throws {
        do {
            _ = try JSONValue.parse(text)
        } catch {
            throw JobQueueRules.notJSON(text, what: what)
        }
    }
}
