import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// The JSON-RPC 2.0 server on the daemon's Unix socket.
///
/// Each connection gets a pipeline of handlers with one job each: `LineFrameDecoder` splits
/// lines, `RPCConnectionHandler` runs requests through the `RPCDispatcher`. The caller's
/// identity comes from the socket's peer credentials.
public final class RPCServer: Service, Sendable {
    /// Where the server listens: a path it binds, or a socket systemd passed in.
    public enum Endpoint: Sendable, Hashable {
        case path(String, mode: UInt32, group: String?)
        case inherited(descriptor: Int32, path: String)

        var path: String {
            switch self {
            case .path(let path, _, _), .inherited(_, let path): return path
            }
        }
    }

    private let endpoint: Endpoint
    private let dispatcher: RPCDispatcher
    private let group: any EventLoopGroup
    private let settings: StenoConfiguration.RPCSettings
    private let logger: Logger
    private let tracker: ConnectionTracker
    private let onReady: @Sendable () -> Void

    init(
        endpoint: Endpoint, dispatcher: RPCDispatcher, group: any EventLoopGroup, settings: StenoConfiguration.RPCSettings,
        logger: Logger, uncappedUIDs: Set<UInt32> = [0, getuid()], onReady: @escaping @Sendable () -> Void = {}
    ) {
        self.endpoint = endpoint
        self.dispatcher = dispatcher
        self.group = group
        self.settings = settings
        self.logger = logger
        self.tracker = ConnectionTracker(maxConnectionsPerUID: settings.maxConnectionsPerUID, uncappedUIDs: uncappedUIDs)
        self.onReady = onReady
    }

    /// Requests stopped so far because their client went away.
    var cancelledRequests: Int { tracker.cancelledRequests }

    /// Binds, serves until graceful shutdown, then lets running requests finish and closes.
    public func run() async throws {
        let channel = try await bind()
        logger.info("listening on \(endpoint.path)")
        onReady()
        try? await gracefulShutdown()
        logger.info("shutting down: no new connections; finishing running requests")
        try? await channel.close()
        await tracker.drainAndCloseAll(timeout: .seconds(5))
        if case .path(let path, _, _) = endpoint { unlink(path) }
    }

    private func bind() async throws -> any Channel {
        let maxFrameBytes = settings.maxFrameBytes
        let descriptors = DescriptorWatch(logger: logger)
        let shared = RPCConnectionHandler.Shared(
            dispatcher: dispatcher, settings: settings, tracker: tracker,
            limiter: PerUIDRequestLimiter(limit: settings.maxRunningPerUID), descriptors: descriptors, logger: logger,
            refusals: RepeatedNotice(logger: logger))
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 1024)
            // Out of descriptors, accepting again at once would spin: wait a second, and say so.
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers(
                        AcceptBackoffHandler(shouldForwardIOErrorCaught: true), AcceptFailureReporter(watch: descriptors))
                }
            }
            .childChannelOption(ChannelOptions.maxMessagesPerRead, value: 16)
            // A page of an `--all` is half a megabyte: with the default send buffer (200 KB)
            // its writing waited on steno, busy printing the page before (the kernel caps the
            // size at `net.core.wmem_max`).
            .childChannelOption(ChannelOptions.socketOption(.so_sndbuf), value: 1 << 20)
            // A client may send its last request and shut down its writing side: answer it.
            .childChannelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers(
                        ByteToMessageHandler(LineFrameDecoder(maxFrameBytes: maxFrameBytes)),
                        RPCConnectionHandler(shared: shared)
                    )
                }
            }
        switch endpoint {
        case .path(let path, let mode, let group):
            try UnixSocketListener.preparePath(path)
            let staging = try UnixSocketListener.stagingPath(for: path)
            let channel = try await bootstrap.bind(unixDomainSocketPath: staging, cleanupExistingSocketFile: false).get()
            do {
                try UnixSocketListener.publish(staging, at: path, mode: mode, group: group)
            } catch {
                try? await channel.close()
                unlink(staging)
                throw error
            }
            return channel
        case .inherited(let descriptor, _):
            return try await bootstrap.withBoundSocket(descriptor).get()
        }
    }
}
