import Foundation
import StenoJSON

/// The device agent's HTTP listener (`[device_agent]`): off unless `listen` is set.
public struct DeviceAgentSettings: Sendable, Hashable {
    /// Where to listen.
    public enum Address: Sendable, Hashable, CustomStringConvertible {
        case tcp(host: String, port: Int)
        /// A Unix socket path, for a reverse proxy on the same machine.
        case unix(path: String)

        public var description: String {
            switch self {
            case .tcp(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
            case .unix(let path): "unix:\(path)"
            }
        }

        /// Loopback addresses and Unix sockets are reachable from this machine only.
        public var isLocalOnly: Bool {
            switch self {
            case .unix: true
            case .tcp(let host, _): host == "localhost" || host == "::1" || host.hasPrefix("127.")
            }
        }
    }

    /// Nil: the listener is off.
    public var listen: Address?
    /// PEM files; both set → HTTPS.
    public var tlsCertificate: String?
    public var tlsKey: String?
    /// Plain HTTP on an address other machines can reach is refused unless this is true.
    public var allowPlainHTTP = false
    /// Larger request bodies are answered 413.
    public var maxBodyBytes = 8 << 20
    /// A request that takes longer is answered 503 and its work cancelled.
    public var requestTimeoutSeconds = 30
    /// Peers whose `X-Forwarded-For` names the real client (a reverse proxy): failures are
    /// slowed down per client address, not per proxy.
    public var trustedProxies = TrustedProxies()
    /// Connections the listener holds at most; more wait in the kernel's queue. The daemon
    /// lowers it to a quarter of its descriptor limit, keeping the rest for the RPC socket,
    /// the catalog and ingest.
    public var maxConnections = 1024
    /// Connections one client address holds at most (TCP listeners; a proxy on the `unix:`
    /// socket is one client).
    public var maxConnectionsPerAddress = 64

    public init() {}

    /// Whether the listener speaks TLS itself.
    public var usesTLS: Bool { tlsCertificate != nil && tlsKey != nil }
}

extension StenoConfiguration {
    static let deviceAgentKeys: Set<String> = [
        "listen", "tls_certificate", "tls_key", "allow_plain_http", "max_body_bytes", "request_timeout_seconds", "trusted_proxies",
        "max_connections", "max_connections_per_address",
    ]

    /// Reads `[device_agent]`.
    mutating func applyDeviceAgent(file settings: [String: JSONValue], path: String) throws {
        guard let table = try Self.section("device_agent", in: settings, known: Self.deviceAgentKeys, path: path) else { return }
        func text(_ key: String) throws -> String? {
            guard let value = table[key] else { return nil }
            guard let string = value.stringValue, !string.isEmpty else {
                throw ConfigurationError("\(path): device_agent.\(key) must be a non-empty string")
            }
            return string
        }
        func integer(_ key: String, in range: ClosedRange<Int64>) throws -> Int? {
            guard let value = table[key] else { return nil }
            guard let number = value.intValue, range.contains(number) else {
                throw ConfigurationError("\(path): device_agent.\(key) must be an integer from \(range.lowerBound) to \(range.upperBound)")
            }
            return Int(number)
        }
        if let listen = try text("listen") {
            deviceAgent.listen = try Self.parseListenAddress(listen, path: path)
        }
        deviceAgent.tlsCertificate = try text("tls_certificate")
        deviceAgent.tlsKey = try text("tls_key")
        if (deviceAgent.tlsCertificate == nil) != (deviceAgent.tlsKey == nil) {
            throw ConfigurationError("\(path): device_agent.tls_certificate and device_agent.tls_key go together: set both or neither")
        }
        if let value = table["allow_plain_http"] {
            guard let flag = value.boolValue else { throw ConfigurationError("\(path): device_agent.allow_plain_http must be true or false") }
            deviceAgent.allowPlainHTTP = flag
        }
        if let value = try integer("max_body_bytes", in: 1024...(1 << 30)) { deviceAgent.maxBodyBytes = value }
        if let value = try integer("request_timeout_seconds", in: 1...3600) { deviceAgent.requestTimeoutSeconds = value }
        if let value = try integer("max_connections", in: 1...1_000_000) { deviceAgent.maxConnections = value }
        if let value = try integer("max_connections_per_address", in: 1...1_000_000) { deviceAgent.maxConnectionsPerAddress = value }
        if let value = table["trusted_proxies"] {
            guard case .array(let items) = value, let entries = Optional(items.compactMap(\.stringValue)), entries.count == items.count
            else {
                throw ConfigurationError(
                    "\(path): device_agent.trusted_proxies must be a list of addresses, \"user:NAME\" or \"group:NAME\" entries")
            }
            do {
                deviceAgent.trustedProxies = try TrustedProxies(entries)
            } catch {
                throw ConfigurationError("\(path): device_agent.trusted_proxies: \(error.message)")
            }
        }
        if let listen = deviceAgent.listen, !listen.isLocalOnly, !deviceAgent.usesTLS, !deviceAgent.allowPlainHTTP {
            throw ConfigurationError(
                "\(path): device_agent.listen = \"\(listen)\" is reachable from other machines but has no TLS: set tls_certificate "
                    + "and tls_key, listen on 127.0.0.1 or a unix: socket behind a reverse proxy, or set allow_plain_http = true")
        }
    }

    /// `host:port`, `[v6]:port`, or `unix:/path`.
    static func parseListenAddress(_ text: String, path: String) throws -> DeviceAgentSettings.Address {
        if text.hasPrefix("unix:") {
            let socket = String(text.dropFirst("unix:".count))
            guard socket.hasPrefix("/") else { throw ConfigurationError("\(path): device_agent.listen: the unix socket path must be absolute") }
            return .unix(path: socket)
        }
        let host: Substring
        let port: Substring
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = text[text.index(after: text.startIndex)..<close]
            port = text[text.index(after: close)...].drop { $0 == ":" }
        } else if let colon = text.lastIndex(of: ":") {
            host = text[..<colon]
            port = text[text.index(after: colon)...]
        } else {
            throw ConfigurationError("\(path): device_agent.listen must be host:port (e.g. 127.0.0.1:8787) or unix:/path, got \"\(text)\"")
        }
        guard !host.isEmpty, let number = Int(port), (0...65_535).contains(number) else {
            throw ConfigurationError("\(path): device_agent.listen must be host:port (e.g. 127.0.0.1:8787) or unix:/path, got \"\(text)\"")
        }
        return .tcp(host: String(host), port: number)
    }
}
