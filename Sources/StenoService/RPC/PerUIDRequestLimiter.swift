import Synchronization

/// Lets at most `limit` requests of one uid run at once, across all its connections, so one
/// member cannot occupy every database reader and thread while the others wait. A uid's
/// excess requests wait in arrival order; other uids are not held up by them.
typealias PerUIDRequestLimiter = PerKeyRequestLimiter<UInt32>

/// Lets at most `limit` requests of one key (a uid, a device's owner) run at once; the key's
/// excess requests wait in arrival order, other keys are not held up by them.
final class PerKeyRequestLimiter<Key: Hashable & Sendable>: Sendable {
    private struct Waiter {
        var id: UInt64
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct UIDState {
        var running = 0
        var waiting: [Waiter] = []
    }

    private struct State {
        var uids: [Key: UIDState] = [:]
        var nextWaiterID: UInt64 = 0
    }

    /// Requests of one uid that may run at once.
    let limit: Int
    private let state = Mutex(State())

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Runs `body` once fewer than `limit` requests of `uid` are running.
    ///
    /// - Throws: `CancellationError` when the task is cancelled while waiting (its client left).
    func run<Value: Sendable>(for uid: Key, _ body: () async -> Value) async throws -> Value {
        try await acquire(uid)
        defer { release(uid) }
        return await body()
    }

    /// Requests of `uid` running now.
    func running(for uid: Key) -> Int {
        state.withLock { $0.uids[uid]?.running ?? 0 }
    }

    private func acquire(_ uid: Key) async throws {
        let limit = self.limit
        let admitted = state.withLock { state -> Bool in
            guard state.uids[uid, default: UIDState()].running < limit else { return false }
            state.uids[uid, default: UIDState()].running += 1
            return true
        }
        if admitted { return }
        try Task.checkCancellation()
        let id = state.withLock { state -> UInt64 in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow: Result<Void, any Error>? = state.withLock { state in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    // A permit may have come free since the first look.
                    if state.uids[uid, default: UIDState()].running < limit {
                        state.uids[uid, default: UIDState()].running += 1
                        return .success(())
                    }
                    state.uids[uid, default: UIDState()].waiting.append(Waiter(id: id, continuation: continuation))
                    return nil
                }
                if let resumeNow { continuation.resume(with: resumeNow) }
            }
        } onCancel: {
            let cancelled = state.withLock { state -> Waiter? in
                guard let index = state.uids[uid]?.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                return state.uids[uid]?.waiting.remove(at: index)
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
    }

    private func release(_ uid: Key) {
        // The permit passes straight to the next waiter of the same uid, if any.
        let next = state.withLock { state -> Waiter? in
            guard var entry = state.uids[uid] else { return nil }
            if entry.waiting.isEmpty {
                entry.running -= 1
                state.uids[uid] = entry.running == 0 ? nil : entry
                return nil
            }
            let next = entry.waiting.removeFirst()
            state.uids[uid] = entry
            return next
        }
        next?.continuation.resume()
    }
}
