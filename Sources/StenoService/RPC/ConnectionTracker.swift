import NIOCore
import Synchronization

/// Knows the open connections and the requests in flight, so shutdown can let running
/// requests finish and then close every connection.
final class ConnectionTracker: Sendable {
    private struct State {
        var channels: [ObjectIdentifier: any Channel] = [:]
        var inFlight = 0
    }

    private let state = Mutex(State())

    func opened(_ channel: any Channel) {
        state.withLock { $0.channels[ObjectIdentifier(channel)] = channel }
    }

    func closed(_ channel: any Channel) {
        _ = state.withLock { $0.channels.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    func requestStarted() { state.withLock { $0.inFlight += 1 } }
    func requestFinished() { state.withLock { $0.inFlight -= 1 } }

    var requestsInFlight: Int { state.withLock { $0.inFlight } }
    var connectionCount: Int { state.withLock { $0.channels.count } }

    /// Waits up to `timeout` for running requests to finish, then closes every connection.
    func drainAndCloseAll(timeout: Duration) async {
        let deadline = ContinuousClock.now + timeout
        while requestsInFlight > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        let channels = state.withLock { Array($0.channels.values) }
        for channel in channels { channel.close(promise: nil) }
    }
}
