import HummingbirdCore
import Logging
import NIOCore
import Synchronization

/// The device listener's open connections: how many per client, and who each one's peer is
/// for the routes (``DeviceAgentRequestContext``).
///
/// An unauthenticated client can open connections for free, so the listener holds a bounded
/// number: at most `maxConnections` (never more than a quarter of the process's descriptor
/// limit, so the RPC socket, the catalog and ingest keep theirs), at most
/// `maxConnectionsPerAddress` per TCP address or Unix-socket uid, and none while the process
/// nears its descriptor limit. At the total the acceptor pauses (Hummingbird's
/// `MaximumAvailableConnections`) and clients wait in the kernel's queue; beyond the others a
/// connection is closed as soon as it is accepted.
final class DeviceListenerConnections: Sendable {
    enum Admission: Equatable {
        case admitted
        case refused(String)
    }

    /// Who is at the other end of a connection.
    struct Peer: Sendable, Hashable {
        /// The peer's address, or `uid N` on a Unix socket.
        var client: String
        /// A trusted proxy: its `X-Forwarded-For` names the real client.
        var isTrustedProxy: Bool
    }

    private struct State {
        var total = 0
        var perClient: [String: Int] = [:]
        var lastDescriptorCheck: ContinuousClock.Instant?
        var openDescriptors = 0
    }

    /// The peers of every open device-listener connection in the process, by channel: a
    /// request context is built from its channel alone.
    private static let peers = Mutex<[ObjectIdentifier: Peer]>([:])

    /// The peer of an open connection's channel.
    static func peer(of channel: any Channel) -> Peer? {
        peers.withLock { $0[ObjectIdentifier(channel)] }
    }

    let maxConnections: Int
    let maxConnectionsPerClient: Int
    /// Descriptors left free for everything else: no connection is admitted beyond.
    let descriptorReserve: Int
    private let descriptorLimit: Int?
    private let state = Mutex(State())
    private let refusals: RepeatedNotice

    private let trusted: TrustedProxies

    init(settings: DeviceAgentSettings, descriptorLimit: UInt64? = DescriptorWatch.softLimit, logger: Logger) {
        self.trusted = settings.trustedProxies
        let limit = descriptorLimit.map { Int(min($0, UInt64(Int.max))) }
        self.descriptorLimit = limit
        self.maxConnections = max(1, min(settings.maxConnections, limit.map { max(8, $0 / 4) } ?? settings.maxConnections))
        self.maxConnectionsPerClient = max(1, min(settings.maxConnectionsPerAddress, maxConnections))
        self.descriptorReserve = limit.map { max(32, $0 / 8) } ?? 0
        self.refusals = RepeatedNotice(logger: logger, level: .warning)
    }

    /// Connections open now.
    var count: Int { state.withLock(\.total) }

    /// Counts an accepted connection from its TCP address, or on a Unix socket from the
    /// process with these `credentials`, or says why it is closed at once.
    func admit(_ channel: any Channel, credentials: PeerCredentials?) -> Admission {
        let now = ContinuousClock.now
        let peer: Peer
        if let address = channel.remoteAddress?.ipAddress {
            peer = Peer(client: address, isTrustedProxy: trusted.trusts(address: address))
        } else if let credentials {
            peer = Peer(client: "uid \(credentials.uid)", isTrustedProxy: trusted.trusts(uid: credentials.uid, gid: credentials.gid))
        } else {
            peer = Peer(client: "local", isTrustedProxy: false)
        }
        let client = peer.client
        let admission = state.withLock { state -> Admission in
            if let refusal = descriptorShortage(&state, now: now) { return .refused(refusal) }
            guard state.perClient[client, default: 0] < maxConnectionsPerClient else {
                return .refused(
                    "\(client) already holds \(maxConnectionsPerClient) connections to the device listener (device_agent.max_connections_per_address)")
            }
            state.total += 1
            state.perClient[client, default: 0] += 1
            return .admitted
        }
        switch admission {
        case .admitted:
            Self.peers.withLock { $0[ObjectIdentifier(channel)] = peer }
        case .refused(let reason):
            refusals.note(client, "refused a device-agent connection: \(reason)", metadata: ["client": "\(client)"])
        }
        return admission
    }

    /// Forgets a connection `admit` counted.
    func closed(_ channel: any Channel) {
        guard let peer = Self.peers.withLock({ $0.removeValue(forKey: ObjectIdentifier(channel)) }) else { return }
        state.withLock { state in
            state.total -= 1
            let left = state.perClient[peer.client, default: 1] - 1
            state.perClient[peer.client] = left > 0 ? left : nil
        }
    }

    /// Why no connection may be admitted for want of descriptors, if so. Counting them lists
    /// `/proc/self/fd`, so it is done at most every 100 ms, and at each connection only once
    /// the process is within twice the reserve of its limit.
    private func descriptorShortage(_ state: inout State, now: ContinuousClock.Instant) -> String? {
        guard let limit = descriptorLimit else { return nil }
        let near = state.openDescriptors >= limit - 2 * descriptorReserve
        let recent = state.lastDescriptorCheck.map { now - $0 < .milliseconds(100) } ?? false
        if near || !recent, let open = DescriptorWatch.openCount() {
            state.openDescriptors = open
            state.lastDescriptorCheck = now
        }
        guard state.openDescriptors >= limit - descriptorReserve else { return nil }
        return "\(state.openDescriptors) of \(limit) file descriptors are open; the last \(descriptorReserve) are kept for the RPC socket, the catalog and ingest"
    }
}
