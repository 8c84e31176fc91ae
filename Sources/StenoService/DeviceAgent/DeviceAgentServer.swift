#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle
import StenoAPI
import Synchronization

/// The device agent's HTTP(S) listener: routes the four endpoints to ``DeviceAgentAPI``,
/// bounds bodies and request time, and logs one line per request at debug level (never a
/// token). It runs as a service of the daemon, so SIGTERM lets running requests finish.
struct DeviceAgentServer: Service {
    let settings: DeviceAgentSettings
    /// From ``tlsConfiguration(_:)``; nil: plain HTTP.
    let tls: TLSConfiguration?
    let api: DeviceAgentAPI
    /// Where the listener is bound, for `system.status` (port 0 picks a free port).
    let endpoint: DeviceAgentEndpoint
    let eventLoopGroup: any EventLoopGroup
    let logger: Logger

    func run() async throws {
        guard let listen = settings.listen else { return }
        let router = Router(context: DeviceAgentRequestContext.self)
        let handler = DeviceAgentRoutes(api: api, settings: settings, logger: logger)
        handler.add(to: router)
        warnAboutProxyTrust(listen)
        let connections = DeviceListenerConnections(settings: settings, logger: logger)
        let server = try serverBuilder(connections: connections)
        let address: BindAddress
        switch listen {
        case .tcp(let host, let port):
            address = .hostname(host, port: port)
        case .unix(let path):
            try Self.prepareSocketPath(path)
            address = .unixDomainSocket(path: path)
        }
        // Hummingbird's own lines (one per start) stay below our info lines.
        var frameworkLogger = logger
        frameworkLogger.logLevel = max(logger.logLevel, .notice)
        let endpoint = self.endpoint
        let logger = self.logger
        let scheme = settings.usesTLS ? "https" : "http"
        let application = Application(
            router: router, server: server,
            configuration: ApplicationConfiguration(
                address: address, serverName: "stenod",
                availableConnectionsDelegate: MaximumAvailableConnections(connections.maxConnections, logger: frameworkLogger)),
            onServerRunning: { channel in
                if case .unix(let path) = listen {
                    // Every request carries a device token: the proxy's user needs only to connect.
                    chmod(path, 0o666)
                }
                let bound = Self.describe(channel.localAddress, fallback: listen)
                endpoint.set("\(scheme)://\(bound)")
                logger.info(
                    "device agent listening",
                    metadata: [
                        "address": "\(scheme)://\(bound)", "max_connections": "\(connections.maxConnections)",
                        "max_connections_per_address": "\(connections.maxConnectionsPerClient)",
                    ])
            },
            eventLoopGroupProvider: .shared(eventLoopGroup), logger: frameworkLogger)
        try await application.run()
        endpoint.set(nil)
    }

    /// Says when `X-Forwarded-For` is believed from more peers than the proxy, or from none
    /// on a socket a proxy is meant to use.
    private func warnAboutProxyTrust(_ listen: DeviceAgentSettings.Address) {
        let trusted = settings.trustedProxies
        if case .tcp = listen, !trusted.loopbackAddresses.isEmpty {
            logger.warning(
                "device_agent.trusted_proxies names \(trusted.loopbackAddresses.joined(separator: ", ")): every local user can connect from there and claim any client address (to dodge or cause the pairing throttle); prefer listen = \"unix:/run/stenod/device-agent.sock\" with trusted_proxies = [\"user:www-data\"] (the proxy's user or group)")
        }
        if case .unix = listen, trusted.uids.isEmpty, trusted.gids.isEmpty {
            logger.notice(
                "device_agent.listen is a unix socket but trusted_proxies names no user: or group:, so X-Forwarded-For is ignored and every phone behind the proxy counts as one client; add trusted_proxies = [\"user:NAME\"] with the proxy's user")
        }
    }

    /// HTTP/1.1, over TLS when configured, each connection guarded (``GuardedChildChannel``).
    private func serverBuilder(connections: DeviceListenerConnections) throws -> HTTPServerBuilder {
        let configuration = HTTP1Channel.Configuration(idleTimeout: .seconds(Int64(max(settings.requestTimeoutSeconds, 60))))
        // A request may take the time limit; reading its head and body counts against it.
        let deadline = TimeAmount.seconds(Int64(settings.requestTimeoutSeconds) + 10)
        let tls = self.tls
        return HTTPServerBuilder { responder in
            let http = HTTP1Channel(responder: responder, configuration: configuration)
            if let tls {
                return GuardedChildChannel(base: try TLSChannel(http, tlsConfiguration: tls), connections: connections, deadline: deadline)
            }
            return GuardedChildChannel(base: http, connections: connections, deadline: deadline)
        }
    }

    /// The listener's TLS set-up, checked whole at start-up so a bad file stops the daemon with
    /// its name: each PEM file loads, the key is the certificate's, and the key file is not
    /// readable by other users (nor writable by anyone but its owner). Nil without TLS.
    static func tlsConfiguration(_ settings: DeviceAgentSettings) throws -> TLSConfiguration? {
        guard settings.usesTLS, let certificatePath = settings.tlsCertificate, let keyPath = settings.tlsKey else { return nil }
        var status = stat()
        if stat(keyPath, &status) == 0, status.st_mode & 0o027 != 0 {
            throw ConfigurationError(
                "device_agent.tls_key: \(keyPath) may be read or changed by other users (mode \(String(status.st_mode & 0o777, radix: 8))); run `chmod 600 \(keyPath)` (or 640 with a group only stenod is in)")
        }
        let chain: [NIOSSLCertificateSource]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificatePath).map { .certificate($0) }
        } catch {
            throw ConfigurationError("device_agent.tls_certificate: cannot load \(certificatePath) as a PEM certificate chain: \(error)")
        }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
        } catch {
            throw ConfigurationError("device_agent.tls_key: cannot load \(keyPath) as a PEM private key (\(error)); is it the key, unencrypted?")
        }
        let configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
        do {
            _ = try NIOSSLContext(configuration: configuration)
        } catch {
            throw ConfigurationError(
                "device_agent.tls_key: \(keyPath) is not the private key of the certificate \(certificatePath) (\(error)); use the key the certificate was made for")
        }
        return configuration
    }

    /// Removes a socket left by a daemon that did not stop cleanly; refuses to replace anything else.
    static func prepareSocketPath(_ path: String) throws {
        var status = stat()
        guard lstat(path, &status) == 0 else { return }
        guard (status.st_mode & S_IFMT) == S_IFSOCK else {
            throw ConfigurationError("device_agent.listen: \(path) exists and is not a socket; remove it or pick another path")
        }
        unlink(path)
    }

    static func describe(_ address: SocketAddress?, fallback: DeviceAgentSettings.Address) -> String {
        switch address {
        case .v4(let v4)?: return "\(v4.host):\(address?.port ?? 0)"
        case .v6(let v6)?: return "[\(v6.host)]:\(address?.port ?? 0)"
        default: return fallback.description
        }
    }
}

/// The listener's bound address, or nil while it is not listening.
final class DeviceAgentEndpoint: Sendable {
    private let address = Mutex<String?>(nil)

    func set(_ value: String?) { address.withLock { $0 = value } }
    var current: String? { address.withLock { $0 } }
}

/// A request's context: Hummingbird's, plus who the connection's peer is.
struct DeviceAgentRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let peer: DeviceListenerConnections.Peer?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peer = DeviceListenerConnections.peer(of: source.channel)
    }
}
