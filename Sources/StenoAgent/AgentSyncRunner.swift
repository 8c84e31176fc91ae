import Foundation

/// Runs an ``AgentSync`` while the app is active: at once, then every `interval`, and early
/// whenever ``trigger()`` is called (from `EKEventStoreChanged`, or when the app comes to the
/// foreground).
///
/// A failure the next try may cure (network, throttling, a server error) is retried sooner
/// than `interval`, backing off from 5 seconds and never before the server's `Retry-After`;
/// a refused token stops the runner with ``AgentSyncOutcome/needsPairing(message:)``. Every
/// run's outcome goes to `onOutcome` (to update the app's status line).
public actor AgentSyncRunner {
    /// The loop it runs.
    public let sync: AgentSync
    /// Seconds between runs when nothing triggers one sooner.
    public let interval: TimeInterval
    private let onOutcome: @Sendable (AgentSyncOutcome) async -> Void
    private var loop: Task<Void, Never>?
    private var wake: CheckedContinuation<Void, Never>?
    private var triggered = false

    /// The first wait after a transient failure; it doubles up to `interval`.
    static let firstRetryDelay: TimeInterval = 5

    /// A runner for `sync`, every `interval` seconds (at least one).
    public init(sync: AgentSync, interval: TimeInterval = 300, onOutcome: @escaping @Sendable (AgentSyncOutcome) async -> Void = { _ in }) {
        self.sync = sync
        self.interval = max(1, interval)
        self.onOutcome = onOutcome
    }

    /// Whether the periodic loop is on.
    public var isRunning: Bool { loop != nil }

    /// Starts the periodic loop (a first run at once); nothing when it is already on.
    public func start() {
        guard loop == nil else { return }
        loop = Task { await self.runLoop() }
    }

    /// Stops the loop after the run in progress, if any.
    public func stop() {
        loop?.cancel()
        loop = nil
        wakeUp()
    }

    /// Asks the loop for a run now instead of at the end of its wait.
    public func trigger() {
        triggered = true
        wakeUp()
    }

    private func runLoop() async {
        var retryDelay = Self.firstRetryDelay
        while !Task.isCancelled {
            let outcome = await runOnce()
            await onOutcome(outcome)
            let delay: TimeInterval
            switch outcome {
            case .synced:
                retryDelay = Self.firstRetryDelay
                delay = interval
            case .failed(_, let retryAfter):
                delay = min(interval, max(retryDelay, retryAfter ?? 0))
                retryDelay = min(interval, retryDelay * 2)
            case .needsPairing:
                loop = nil
                return
            }
            await wait(seconds: delay)
        }
    }

    /// One run of the loop, its errors turned into an outcome.
    public func runOnce() async -> AgentSyncOutcome {
        triggered = false
        do {
            return .synced(try await sync.run())
        } catch let error as AgentClientError {
            switch error {
            case .unauthorized(let message): return .needsPairing(message: message)
            case .rateLimited(let retryAfter): return .failed(message: error.description, retryAfter: retryAfter)
            default: return .failed(message: error.description, retryAfter: nil)
            }
        } catch {
            return .failed(message: String(describing: error), retryAfter: nil)
        }
    }

    /// Waits `seconds`, or less when triggered or stopped.
    private func wait(seconds: TimeInterval) async {
        guard !triggered, !Task.isCancelled else { return }
        let timer = Task { [weak self] in
            try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
            // A timer cancelled because the wait ended early must not end the next one.
            guard !Task.isCancelled else { return }
            await self?.wakeUp()
        }
        await withCheckedContinuation { wake = $0 }
        timer.cancel()
    }

    private func wakeUp() {
        wake?.resume()
        wake = nil
    }
}
