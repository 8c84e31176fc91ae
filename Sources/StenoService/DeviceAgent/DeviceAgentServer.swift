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
        let http = HTTPServerBuilder.http1(configuration: .init(idleTimeout: .seconds(Int64(max(settings.requestTimeoutSeconds, 60)))))
        let server = try settings.usesTLS ? HTTPServerBuilder.tls(http, tlsConfiguration: try tlsConfiguration()) : http
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
            router: router, server: server, configuration: ApplicationConfiguration(address: address, serverName: "stenod"),
            onServerRunning: { channel in
                if case .unix(let path) = listen {
                    // Every request carries a device token: the proxy's user needs only to connect.
                    chmod(path, 0o666)
                }
                let bound = Self.describe(channel.localAddress, fallback: listen)
                endpoint.set("\(scheme)://\(bound)")
                logger.info("device agent listening", metadata: ["address": "\(scheme)://\(bound)"])
            },
            eventLoopGroupProvider: .shared(eventLoopGroup), logger: frameworkLogger)
        try await application.run()
        endpoint.set(nil)
    }

    func tlsConfiguration() throws -> TLSConfiguration {
        guard let certificatePath = settings.tlsCertificate, let keyPath = settings.tlsKey else {
            throw ConfigurationError("device_agent: TLS needs tls_certificate and tls_key")
        }
        do {
            let chain = try NIOSSLCertificate.fromPEMFile(certificatePath).map { NIOSSLCertificateSource.certificate($0) }
            let key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
            return TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
        } catch {
            throw ConfigurationError(
                "device_agent: cannot load the TLS certificate \(certificatePath) or key \(keyPath) (PEM expected): \(error)")
        }
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

/// A request's context: Hummingbird's, plus the peer's address for throttling failures.
struct DeviceAgentRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let peer: SocketAddress?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peer = source.channel.remoteAddress
    }
}
