import Synchronization

/// Wakes idle workers when a job is enqueued, and tells them when to stop.
///
/// A generation counter makes wake-ups impossible to miss: a worker notes the generation
/// before it looks for work and waits only while it is unchanged, so a job enqueued between
/// an empty claim and the wait still wakes it at once.
final class JobWakeSignal: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var stopping = false
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextWaiterID: UInt64 = 0
    }

    private let state = Mutex(State())

    /// The current generation; pass it to `wait(since:timeout:)`.
    var generation: UInt64 { state.withLock { $0.generation } }

    /// Whether `stop()` was called.
    var isStopping: Bool { state.withLock { $0.stopping } }

    /// Wakes every waiting worker.
    func wake() {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.generation &+= 1
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for continuation in woken { continuation.resume() }
    }

    /// Marks the pool as stopping and wakes everyone.
    func stop() {
        state.withLock { $0.stopping = true }
        wake()
    }

    /// Returns when the generation differs from `generation`, after `timeout` (nil: never), or
    /// when the task is cancelled.
    func wait(since generation: UInt64, timeout: Duration?) async {
        guard let timeout else {
            await waitForChange(since: generation)
            return
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.waitForChange(since: generation) }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
        }
    }

    private func waitForChange(since generation: UInt64) async {
        let id = state.withLock { state -> UInt64 in
            state.nextWaiterID &+= 1
            return state.nextWaiterID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                // Checked under the lock the cancellation handler takes too, so a cancellation
                // is seen either here or there, never lost in between.
                let resumeNow = state.withLock { state -> Bool in
                    if state.generation != generation || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let continuation = state.withLock { $0.waiters.removeValue(forKey: id) }
            continuation?.resume()
        }
    }
}
