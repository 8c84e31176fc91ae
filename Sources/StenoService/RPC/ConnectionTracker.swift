import NIOCore
import Synchronization

/// Knows the open connections, whose they are, and the requests in flight: admits a uid's
/// connection only below its cap, and lets shutdown wait for running requests and then close
/// every connection.
final class ConnectionTracker: Sendable {
    private struct State {
        var channels: [ObjectIdentifier: any Channel] = [:]
        var connectionsByUID: [UInt32: Int] = [:]
        var inFlight = 0
        var cancelled = 0
    }

    /// Connections one uid may hold open at once.
    let maxConnectionsPerUID: Int
    /// Uids without a cap: root and the daemon's own, who could stop the daemon anyway.
    let uncappedUIDs: Set<UInt32>
    private let state = Mutex(State())

    init(maxConnectionsPerUID: Int = .max, uncappedUIDs: Set<UInt32> = []) {
        self.maxConnectionsPerUID = maxConnectionsPerUID
        self.uncappedUIDs = uncappedUIDs
    }

    func opened(_ channel: any Channel) {
        state.withLock { $0.channels[ObjectIdentifier(channel)] = channel }
    }

    /// Counts the connection against its uid; false when the uid already has its cap open.
    func admit(uid: UInt32) -> Bool {
        let cap = uncappedUIDs.contains(uid) ? Int.max : maxConnectionsPerUID
        return state.withLock { state in
            guard state.connectionsByUID[uid, default: 0] < cap else { return false }
            state.connectionsByUID[uid, default: 0] += 1
            return true
        }
    }

    /// Forgets a connection; `admittedUID` is the uid `admit` counted it for, if it did.
    func closed(_ channel: any Channel, admittedUID: UInt32?) {
        state.withLock { state in
            state.channels.removeValue(forKey: ObjectIdentifier(channel))
            guard let uid = admittedUID, let count = state.connectionsByUID[uid] else { return }
            state.connectionsByUID[uid] = count > 1 ? count - 1 : nil
        }
    }

    func requestStarted() { state.withLock { $0.inFlight += 1 } }
    func requestFinished() { state.withLock { $0.inFlight -= 1 } }
    /// Counts requests stopped because their client went away.
    func requestsCancelled(_ count: Int) { state.withLock { $0.cancelled += count } }

    var requestsInFlight: Int { state.withLock { $0.inFlight } }
    var connectionCount: Int { state.withLock { $0.channels.count } }
    /// Requests stopped so far because their client went away.
    var cancelledRequests: Int { state.withLock { $0.cancelled } }

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
