import Foundation
import StenoCatalog
import StenoCore
import StenoSQLite

/// The job queue as the rest of the service uses it: enqueues and wakes the worker pool, so a
/// new job starts within milliseconds instead of at the next poll.
public struct JobQueue: Sendable {
    /// The queue's storage.
    public let store: any JobQueueStore
    /// `maxAttempts` for drafts that leave it unset (`[jobs] max_attempts`).
    public let defaultMaxAttempts: Int
    let signal: JobWakeSignal

    /// A queue on `store`; share one value between the pool and everyone who enqueues.
    public init(store: any JobQueueStore, defaultMaxAttempts: Int = JobDraft.defaultMaxAttempts) {
        self.store = store
        self.defaultMaxAttempts = defaultMaxAttempts
        self.signal = JobWakeSignal()
    }

    /// Enqueues a job (or finds the live one holding its unique key) and wakes idle workers.
    public func enqueue(_ draft: JobDraft) async throws -> EnqueueResult {
        guard let result = try await enqueue([draft]).first else {
            throw StoreError.failedPrecondition("the store returned no result for an enqueued job")
        }
        return result
    }

    /// Enqueues several jobs in one transaction (a draft whose unique key is live, or repeats
    /// an earlier draft's, adds nothing) and wakes idle workers once. One result per draft.
    public func enqueue(_ drafts: [JobDraft]) async throws -> [EnqueueResult] {
        let results = try await store.enqueue(drafts.map(withDefaults))
        if results.contains(where: \.isNew) { signal.wake() }
        return results
    }

    /// Enqueues one fire time of a cron schedule through `fires`, once across every daemon
    /// sharing the queue, and wakes idle workers when it added a job. Nil when another daemon
    /// enqueued this fire time already.
    public func enqueueScheduled(
        _ draft: JobDraft, schedule: String, fireTime: Date, fires: any ScheduledJobStore
    ) async throws -> EnqueueResult? {
        let result = try await fires.enqueueScheduled(withDefaults(draft), schedule: schedule, fireTime: fireTime)
        if result?.isNew == true { signal.wake() }
        return result
    }

    /// The draft with this queue's `maxAttempts` where it sets none.
    func withDefaults(_ draft: JobDraft) -> JobDraft {
        var draft = draft
        if draft.maxAttempts == nil { draft.maxAttempts = defaultMaxAttempts }
        return draft
    }

    /// Wakes idle workers: call after enqueuing through a store transaction of your own
    /// (`SQLiteCatalog.enqueue(_:in:)`).
    public func wake() {
        signal.wake()
    }
}
