import Foundation
import StenoCore

/// A claimed job's successful end, as `JobQueueStore.complete(_:now:)` records it in a batch.
public struct JobCompletion: Sendable, Hashable {
    /// The claim being finished; its fencing token is checked.
    public var claim: ClaimedJob
    /// The handler's result, JSON text (nil for none).
    public var result: String?

    /// A completion of `claim` with `result`.
    public init(claim: ClaimedJob, result: String?) {
        self.claim = claim
        self.result = result
    }
}

/// Default implementations of the batch operations in terms of the one-job methods (one
/// transaction per job), for stores without a faster way.
extension JobQueueStore {
    /// Enqueues the drafts one by one.
    public func enqueue(_ drafts: [JobDraft]) async throws -> [EnqueueResult] {
        var results: [EnqueueResult] = []
        results.reserveCapacity(drafts.count)
        for draft in drafts { results.append(try await enqueue(draft)) }
        return results
    }

    /// Claims at most one job, whatever the batch limits.
    public func claim(
        workerID: String, kinds: Set<String>?, batchLimits: [String: Int], leaseDuration: Duration, now: Date
    ) async throws -> [ClaimedJob] {
        try await claim(workerID: workerID, kinds: kinds, leaseDuration: leaseDuration, now: now).map { [$0] } ?? []
    }

    /// Completes the claims one by one; a stale one is not recorded.
    public func complete(_ completions: [JobCompletion], now: Date) async throws -> [Bool] {
        var recorded: [Bool] = []
        recorded.reserveCapacity(completions.count)
        for completion in completions {
            do {
                try await complete(completion.claim, result: completion.result, now: now)
                recorded.append(true)
            } catch StoreError.conflict {
                recorded.append(false)
            }
        }
        return recorded
    }

    /// Renews the leases one by one.
    public func heartbeat(_ claims: [ClaimedJob], extendBy: Duration, now: Date) async throws -> Set<Int64> {
        var held = Set<Int64>()
        for claim in claims {
            if try await heartbeat(claim, extendBy: extendBy, now: now) { held.insert(claim.job.id) }
        }
        return held
    }
}
