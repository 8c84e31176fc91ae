/// Why a call to the daemon failed, with messages that say what to do.
public enum StenoClientError: Error, Sendable, CustomStringConvertible {
    /// Nothing listens on the socket (no file, or a stale one).
    case daemonNotRunning(socketPath: String)
    /// The socket exists but may not be opened by this user.
    case permissionDenied(socketPath: String)
    /// Connecting, sending or receiving failed for another reason.
    case connectionFailed(socketPath: String, reason: String)
    /// The daemon closed the connection or sent something unreadable.
    case protocolError(String)
    /// The daemon answered with a JSON-RPC error.
    case rpc(RPCError)
    /// The daemon's answer did not have the expected shape.
    case unexpectedResult(method: String, reason: String)

    public var description: String {
        switch self {
        case .daemonNotRunning(let path):
            return "stenod is not running (no daemon listens on \(path)); start it with `stenod` (or `systemctl start stenod`), or point to another socket with --socket PATH or STENO_SOCKET"
        case .permissionDenied(let path):
            return "permission denied on \(path): ask an admin to add you to the socket's group (socket_group in stenod.toml)"
        case .connectionFailed(let path, let reason):
            return "cannot talk to stenod on \(path): \(reason)"
        case .protocolError(let reason):
            return "stenod sent an unreadable answer: \(reason)"
        case .rpc(let error):
            return error.message
        case .unexpectedResult(let method, let reason):
            return "unexpected answer to \(method): \(reason)"
        }
    }
}
