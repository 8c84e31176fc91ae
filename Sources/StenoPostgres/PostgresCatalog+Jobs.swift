import Foundation
import PostgresNIO
import StenoCatalog
import StenoCore
import StenoJSON

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
        let results = try await transaction { tx in try await Self.enqueue(drafts, in: tx, now: now) }
        await noteEnqueued(results.filter(\.isNew).count)
        return results
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

    public func newestJobs(state: JobState?, kind: String?, beforeID: Int64?, limit: Int) async throws -> [Job] {
        try await rows(
            """
            SELECT \(unescaped: JobQueueRules.columns) FROM jobs
            WHERE id < \(beforeID ?? Int64.max) AND (\(state?.rawValue)::text IS NULL OR state = \(state?.rawValue)::text)
              AND (\(kind)::text IS NULL OR kind = \(kind)::text)
            ORDER BY id DESC LIMIT \(max(0, limit))
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
        guard let result = try await enqueue([draft], in: tx, now: now, notify: notify).first else {
            throw StoreError.failedPrecondition("enqueueing one job returned no result")
        }
        return result
    }

    /// Enqueues jobs inside the caller's transaction with one insert for all of them (one round
    /// trip, not one per job); one result per draft, in order. A draft whose unique key is live,
    /// or repeats an earlier draft's, is `.alreadyLive` with the job holding the key, as if the
    /// drafts were enqueued one after the other.
    ///
    /// - Throws: `StoreError.invalid` for a bad draft (and nothing is inserted).
    static func enqueue(_ drafts: [JobDraft], in tx: PostgresTransaction, now: Date, notify: Bool = true) async throws -> [EnqueueResult] {
        guard !drafts.isEmpty else { return [] }
        var checked: [(kind: String, maxAttempts: Int)] = []
        for draft in drafts {
            checked.append(try JobQueueRules.checked(draft))
            try requireJSON(draft.payload, what: "payload")
        }
        // A key repeated within the call is the job of its first draft.
        var firstDraftOfKey: [String: Int] = [:]
        var repeats: [(index: Int, of: Int)] = []
        var pending: [Int] = []
        for (index, draft) in drafts.enumerated() {
            if let key = draft.uniqueKey {
                if let first = firstDraftOfKey[key] {
                    repeats.append((index, first))
                    continue
                }
                firstDraftOfKey[key] = index
            }
            pending.append(index)
        }
        var results = [EnqueueResult?](repeating: nil, count: drafts.count)
        // A live job holding a key may finish between the insert that found it and the select
        // that reads it: then the key is free, and its draft is inserted again.
        for _ in 0..<3 where !pending.isEmpty {
            for row in try await tx.rows(insertion(of: pending.map { (drafts[$0], checked[$0]) }, now: now)) {
                let position = try row.makeRandomAccess()[jobColumnCount].decode(Int.self) - 1
                guard pending.indices.contains(position) else { throw StoreError.failedPrecondition("an inserted job matched no draft") }
                results[pending[position]] = .enqueued(try job(row))
            }
            let refused = pending.filter { results[$0] == nil }
            let keys = refused.compactMap { drafts[$0].uniqueKey }
            var holders: [String: Job] = [:]
            if !keys.isEmpty {
                for row in try await tx.rows(
                    """
                    SELECT DISTINCT ON (unique_key) \(unescaped: JobQueueRules.columns) FROM jobs
                    WHERE unique_key = ANY(\(keys)::text[]) AND state IN ('queued', 'running', 'failed') ORDER BY unique_key, id
                    """)
                {
                    let holder = try job(row)
                    if let key = holder.uniqueKey { holders[key] = holder }
                }
            }
            pending = []
            for index in refused {
                if let key = drafts[index].uniqueKey, let holder = holders[key] {
                    results[index] = .alreadyLive(holder)
                } else {
                    pending.append(index)
                }
            }
        }
        guard pending.isEmpty else {
            throw StoreError.failedPrecondition("the job insert returned no row and no live job holds its key")
        }
        for (index, first) in repeats {
            if let holder = results[first]?.job { results[index] = .alreadyLive(holder) }
        }
        let enqueued = results.compactMap { $0 }
        guard enqueued.count == drafts.count else { throw StoreError.failedPrecondition("a draft was neither enqueued nor found live") }
        if notify && enqueued.contains(where: \.isNew) { try await notifyJobArrival(tx) }
        return enqueued
    }

    /// One insert of checked drafts, returning each new job's row with the draft's position
    /// (from 1) after the job's columns. Ids are drawn before the insert so each row can be
    /// matched to its draft; a draft whose key is live inserts nothing: through the partial
    /// unique index `jobs_unique_live`, a concurrent daemon's insert of the same key makes this
    /// one wait for its commit, then skip the row.
    private static func insertion(of drafts: [(JobDraft, (kind: String, maxAttempts: Int))], now: Date) -> PostgresQuery {
        let nowMilliseconds = milliseconds(now)
        let kinds = drafts.map(\.1.kind), payloads = drafts.map(\.0.payload), priorities = drafts.map { Int64($0.0.priority) }
        let maxAttempts = drafts.map { Int64($0.1.maxAttempts) }, runAts = drafts.map { $0.0.runAt.map(milliseconds) ?? nowMilliseconds }
        // Arrays of optionals do not bind: a key, and whether there is one.
        let keys = drafts.map { $0.0.uniqueKey ?? "" }, hasKeys = drafts.map { $0.0.uniqueKey != nil }
        return """
            WITH draft AS MATERIALIZED (
                SELECT nextval(pg_get_serial_sequence('jobs', 'id')) AS id, d.*
                FROM unnest(\(kinds)::text[], \(payloads)::text[], \(priorities)::bigint[], \(maxAttempts)::bigint[], \(runAts)::bigint[],
                            \(keys)::text[], \(hasKeys)::boolean[])
                    WITH ORDINALITY AS d (kind, payload, priority, max_attempts, run_at, unique_key, has_key, position)
            ), inserted AS (
                INSERT INTO jobs (id, kind, payload, state, priority, attempts, max_attempts, run_at, unique_key, created_at, updated_at)
                SELECT id, kind, payload, 'queued', priority, 0, max_attempts, run_at, CASE WHEN has_key THEN unique_key END,
                    \(nowMilliseconds), \(nowMilliseconds)
                FROM draft ORDER BY position
                ON CONFLICT DO NOTHING
                RETURNING \(unescaped: JobQueueRules.columns)
            )
            SELECT inserted.*, draft.position FROM inserted JOIN draft ON draft.id = inserted.id
            """
    }
}

// MARK: - Rows

extension PostgresCatalog {
    /// How many columns `JobQueueRules.columns` names: a statement's extra columns come after.
    static let jobColumnCount = 17

    /// A job from a row of `JobQueueRules.columns`, read by position.
    static func job(_ row: PostgresRow) throws -> Job {
        let cells = row.makeRandomAccess()
        return try JobQueueRules.job(
            id: cells[0].decode(Int64.self), kind: cells[1].decode(String.self), payload: cells[2].decode(String.self),
            state: cells[3].decode(String.self), priority: cells[4].decode(Int.self), attempts: cells[5].decode(Int.self),
            maxAttempts: cells[6].decode(Int.self), runAt: cells[7].decode(Int64.self), leaseOwner: cells[8].decode(String?.self),
            leaseExpiresAt: cells[9].decode(Int64?.self), lastError: cells[10].decode(String?.self),
            uniqueKey: cells[11].decode(String?.self), result: cells[12].decode(String?.self), createdAt: cells[13].decode(Int64.self),
            updatedAt: cells[14].decode(Int64.self), finishedAt: cells[15].decode(Int64?.self),
            progress: cells[16].decode(String?.self))
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
