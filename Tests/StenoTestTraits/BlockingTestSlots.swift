import Foundation

/// How many thread-blocking tests run at once across the whole test process, and the queue
/// of those waiting for a slot (first come, first served).
///
/// Waiting suspends the task rather than blocking a thread, so tests queued here cost nothing
/// while they wait.
package actor BlockingTestSlots {
    /// Three at once: the end-to-end tests mostly wait for their daemons, so three keep two
    /// cores busy without making every daemon's own timeouts race the others' work. Raise it
    /// with `STENO_TEST_BLOCKING_SLOTS` on a larger machine.
    static let shared = BlockingTestSlots(limit: configuredLimit())

    private let limit: Int
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    package init(limit: Int) { self.limit = max(1, limit) }

    /// Tests running and tests waiting for a slot, for tests of this type.
    package var occupancy: (running: Int, waiting: Int) { (running, waiting.count) }

    /// Runs `body` once a slot is free, and frees the slot when it ends, thrown or not.
    package nonisolated func withSlot(_ body: @Sendable () async throws -> Void) async throws {
        await acquire()
        do {
            try await body()
        } catch {
            await release()
            throw error
        }
        await release()
    }

    private func acquire() async {
        if running < limit {
            running += 1
            return
        }
        // The slot is handed over by `release`, which leaves `running` as it is.
        await withCheckedContinuation { waiting.append($0) }
    }

    private func release() {
        if waiting.isEmpty {
            running -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }

    private static func configuredLimit() -> Int {
        guard let text = ProcessInfo.processInfo.environment["STENO_TEST_BLOCKING_SLOTS"], let value = Int(text), value > 0
        else { return 3 }
        return min(value, 64)
    }
}
