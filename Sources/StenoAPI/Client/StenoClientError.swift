#if canImport(Glibc)
import Glibc
#endif

/// Why a call to the daemon failed, with messages that say what to do.
public enum StenoClientError: Error, Sendable, CustomStringConvertible {
    /// Nothing listens on any socket tried (no file, or a stale one).
    case daemonNotRunning(tried: [SocketLocation])
    /// The socket exists but may not be opened by this user, for the reason given.
    case permissionDenied(SocketLocation, SocketDenial)
    /// Connecting, sending or receiving failed for another reason.
    case connectionFailed(socketPath: String, reason: String)
    /// The daemon closed the connection or sent something unreadable.
    case protocolError(String)
    /// The request could not be written as JSON on this side (the daemon never saw it).
    case requestNotEncodable(method: String, reason: String)
    /// The daemon answered with a JSON-RPC error.
    case rpc(RPCError)
    /// The daemon's answer did not have the expected shape.
    case unexpectedResult(method: String, reason: String)

    public var description: String {
        switch self {
        case .daemonNotRunning(let tried):
            // A team's daemon (a socket under /run) is started by an admin; a person's own by them.
            let start =
                getuid() != 0 && tried.contains(where: { $0.path.hasPrefix("/run/") })
                ? "an admin starts the team's daemon with `systemctl start stenod` (why it stopped: journalctl -u stenod)"
                : "start it with `stenod` (or `systemctl start stenod`)"
            return "stenod is not running: no daemon answers on \(tried.map(\.description).joined(separator: ", ")); "
                + "\(start), or choose the socket with --socket PATH, STENO_SOCKET or socket = \"PATH\" in ~/.config/steno/client.toml"
        case .permissionDenied(let location, let denial):
            return "permission denied on \(location): \(denial)"
        case .connectionFailed(let path, let reason):
            return "cannot talk to stenod on \(path): \(reason)"
        case .protocolError(let reason):
            return "stenod sent an unreadable answer: \(reason)"
        case .rpc(let error):
            return error.message
        case .requestNotEncodable(let method, let reason):
            return "steno could not write its request \(method) (nothing was sent to stenod): \(reason)"
        case .unexpectedResult(let method, let reason):
            return "unexpected answer to \(method): \(reason)"
        }
    }
}
