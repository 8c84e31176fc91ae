#if canImport(Glibc)
import Glibc
#endif

/// A socket the CLI may connect to, and where that choice came from, for messages.
public struct SocketLocation: Sendable, Equatable, CustomStringConvertible {
    /// Where a socket path came from.
    public enum Origin: Sendable, Equatable {
        /// `--socket PATH`.
        case flag
        /// `STENO_SOCKET`.
        case environment
        /// `socket = "PATH"` in this client config file.
        case configFile(String)
        /// `$XDG_RUNTIME_DIR/steno/stenod.sock`: a daemon the user runs.
        case runtimeDirectory
        /// The daemon's own default for this user when `XDG_RUNTIME_DIR` is unset.
        case userDefault
        /// `/run/steno/stenod.sock`: the system daemon of `deploy/`.
        case systemDefault
        /// Handed to `StenoClient(socketPath:)` by a program.
        case given
    }

    /// The socket's path.
    public var path: String
    /// Where the path came from.
    public var origin: Origin

    /// A location.
    public init(path: String, origin: Origin) {
        self.path = path
        self.origin = origin
    }

    /// The path with its origin: `/run/steno/stenod.sock (system default)`.
    public var description: String {
        switch origin {
        case .given: return path
        case .flag: return "\(path) (--socket)"
        case .environment: return "\(path) (STENO_SOCKET)"
        case .configFile(let file): return "\(path) (\(file))"
        case .runtimeDirectory: return "\(path) ($XDG_RUNTIME_DIR)"
        case .userDefault: return "\(path) (your default)"
        case .systemDefault: return "\(path) (system default)"
        }
    }
}

/// How the CLI finds the daemon: `--socket`, else `STENO_SOCKET`, else `socket` in a client
/// config file (the user's, then `/etc/steno/client.toml`) — each used alone when given —
/// else the user's runtime socket and then the system socket, the first that answers.
///
/// The daemon keeps its own default (`DefaultPaths.socketPath`); members of a team reach the
/// system daemon at `/run/steno/stenod.sock` with nothing configured.
public enum SocketDiscovery {
    /// Reads a client config file; nil when there is none.
    public typealias ConfigLoader = (String) throws(ClientConfigError) -> ClientConfigFile?

    /// The sockets to try, in order: one when chosen explicitly, else the two defaults.
    ///
    /// - Throws: `ClientConfigError` when a config file exists but is unreadable or malformed.
    public static func candidates(
        flag: String?, environment: [String: String], uid: UInt32 = getuid(),
        systemConfigPath: String = DefaultPaths.systemClientConfigPath,
        loadConfig: ConfigLoader = ClientConfigFile.load
    ) throws(ClientConfigError) -> [SocketLocation] {
        if let flag, !flag.isEmpty { return [SocketLocation(path: flag, origin: .flag)] }
        if let socket = environment["STENO_SOCKET"], !socket.isEmpty { return [SocketLocation(path: socket, origin: .environment)] }
        let configPaths = [DefaultPaths.userClientConfigPath(environment: environment), systemConfigPath].compactMap { $0 }
        for path in configPaths {
            if let socket = try loadConfig(path)?.socket { return [SocketLocation(path: socket, origin: .configFile(path))] }
        }
        var defaults: [SocketLocation] = []
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            defaults.append(SocketLocation(path: runtime + "/steno/stenod.sock", origin: .runtimeDirectory))
        } else {
            defaults.append(SocketLocation(path: DefaultPaths.socketPath(environment: environment, uid: uid), origin: .userDefault))
        }
        if !defaults.contains(where: { $0.path == DefaultPaths.systemSocketPath }) {
            defaults.append(SocketLocation(path: DefaultPaths.systemSocketPath, origin: .systemDefault))
        }
        return defaults
    }

    /// Connects to the first candidate where a daemon answers.
    ///
    /// - Throws: `.daemonNotRunning` listing every candidate when none answers; a refusal
    ///   (`.permissionDenied`, …) of a candidate when no later one answers either.
    public static func connect(_ candidates: [SocketLocation]) throws(StenoClientError) -> StenoClient {
        var refusal: StenoClientError?
        for candidate in candidates {
            do {
                return try StenoClient(socket: candidate)
            } catch {
                if case .daemonNotRunning = error { continue }
                // A socket that exists but refuses us: a later default may still answer.
                refusal = refusal ?? error
            }
        }
        if let refusal { throw refusal }
        throw .daemonNotRunning(tried: candidates)
    }
}
