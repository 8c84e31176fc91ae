#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import StenoAPI
import StenoCalendar
import StenoCatalog

/// The `stenod` daemon: opens the catalog (applying migrations), serves JSON-RPC on the
/// socket, and shuts down gracefully on SIGTERM or SIGINT.
public struct StenoDaemon: Sendable {
    /// The resolved configuration.
    public let configuration: StenoConfiguration
    let environment: [String: String]
    let logger: Logger
    /// Start even though the secrets key is gone, dropping the credentials sealed with it
    /// (`--forget-credentials`); otherwise such a start is refused.
    let forgetSealedCredentials: Bool

    public init(
        configuration: StenoConfiguration, environment: [String: String], logger: Logger = Logger(label: "stenod"),
        forgetSealedCredentials: Bool = false
    ) {
        self.configuration = configuration
        self.environment = environment
        self.logger = logger
        self.forgetSealedCredentials = forgetSealedCredentials
    }

    /// Runs until a termination signal, then finishes running requests and returns.
    public func run() async throws {
        let inheritedUmask = DataFolderPermissions.restrictUmask()
        let inherited = SocketActivation.inheritedListener(environment: environment)
        let endpoint: RPCServer.Endpoint =
            inherited.map { .inherited(descriptor: $0, path: configuration.socketPath) }
            ?? .path(configuration.socketPath, mode: configuration.socketMode, group: configuration.socketGroup)
        if inherited == nil {
            // Fail fast, before touching the database, when another daemon owns the socket.
            try UnixSocketListener.preparePath(configuration.socketPath)
        }
        if let descriptors = DescriptorWatch.raiseSoftLimit() {
            // Each connection, watched folder and database file holds one.
            logger.info("file descriptor limit", metadata: ["soft": "\(descriptors.soft)", "hard": "\(descriptors.hard)"])
        }
        // A bad TLS file stops the daemon here, named, rather than the listener later.
        let deviceAgentTLS = try DeviceAgentServer.tlsConfiguration(configuration.deviceAgent)
        try DataFolderPermissions.secure(
            dataDirectory: configuration.dataDirectory, databasePath: configuration.postgres == nil ? configuration.databasePath : nil,
            keyPath: configuration.secretKeyPath(environment: environment), socketGroup: configuration.socketGroup, logger: logger)
        if configuration.socketGroup != nil, configuration.inboxDirectory.hasPrefix(configuration.dataDirectory + "/") {
            logger.warning(
                "the inbox is inside the data folder, which only the daemon's user may enter: members cannot drop files there; set `inbox` to a folder outside it",
                metadata: ["inbox": "\(configuration.inboxDirectory)", "data_dir": "\(configuration.dataDirectory)"])
        }
        if !FileManager.default.fileExists(atPath: configuration.inboxDirectory) {
            // Members drop files here: the inbox keeps the mode the starting umask gives, not the data's.
            try FileManager.default.createDirectory(
                atPath: configuration.inboxDirectory, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o777 & ~inheritedUmask])
        }
        let store = try await openCatalog()
        try await checkSecretKey(store: store)
        let statistics = try await store.statistics()
        logger.info(
            "catalog ready",
            metadata: ["database": "\(statistics.location)", "schema": "\(statistics.schemaVersion)"])

        let queue = JobQueue(store: store, defaultMaxAttempts: configuration.jobs.maxAttempts)
        await resumeDeletions(store: store, queue: queue)
        let calendars = makeCalendarRuntime(store: store)
        await URLCredentials.moveStoredCredentials(store: store, secrets: calendars.secrets, logger: logger)
        let linker = RecordingLinker(
            store: store, policy: configuration.links.policy, verifier: calendars.verifier, history: calendars.history)
        let handlers = jobHandlers(store: store, queue: queue)
            + [CalendarSyncJobHandler(syncer: calendars.syncer, queue: queue)] + linkJobHandlers(store: store, linker: linker)
        let (pool, scheduler) = makeJobServices(queue: queue, fires: store, handlers: handlers)
        let calendarScheduler = CalendarSyncScheduler(store: store, queue: queue, tick: .seconds(15), logger: logger)
        let deviceAgentEndpoint = DeviceAgentEndpoint()
        let dispatcher = try makeDispatcher(
            store: store, queue: queue, jobKinds: Set(handlers.map(\.kind)), calendars: calendars, linker: linker,
            deviceAgentEndpoint: deviceAgentEndpoint)
        // Half the cores by default: on small machines fewer loops mean fewer context switches (a
        // steadier tail latency), and the other cores stay free for ingestion and calendar sync.
        let threads = configuration.rpc.threads > 0 ? configuration.rpc.threads : max(1, System.coreCount / 2)
        let eventLoops = MultiThreadedEventLoopGroup(numberOfThreads: threads)
        let environment = self.environment
        let server = RPCServer(
            endpoint: endpoint, dispatcher: dispatcher, group: eventLoops,
            settings: configuration.rpc,
            logger: logger,
            onReady: { SocketActivation.notifyReady(environment: environment) }
        )
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: pool), .init(service: JobArrivalListener(store: store, queue: queue)),
            .init(
                service: InboxWatchLease(
                    leases: store, inbox: configuration.inboxDirectory, duration: configuration.watcher.leaseDuration, logger: logger,
                    makeWatcher: { makeInboxWatcher(store: store, queue: queue) })),
            .init(service: scheduler), .init(service: calendarScheduler),
        ]
        if configuration.deviceAgent.listen != nil {
            let api = DeviceAgentAPI(
                store: store, queue: queue, throttle: AuthFailureThrottle(), contacts: DeviceContactLog(),
                defaultTimeZone: configuration.calendarTimeZone.identifier, deviceLimit: configuration.members.deviceLimit, inbox: inbox,
                logger: logger)
            services.append(
                .init(
                    service: DeviceAgentServer(
                        settings: configuration.deviceAgent, tls: deviceAgentTLS, api: api, endpoint: deviceAgentEndpoint,
                        eventLoopGroup: eventLoops, logger: logger)))
        }
        services.append(.init(service: server))
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                // Shut down in reverse: the servers stop taking requests, the scheduler and the
                // watcher stop enqueuing, then the pool finishes or releases its jobs.
                services: services,
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            ))
        do {
            try await group.run()
        } catch {
            try? await calendars.transport.shutdown()
            try? await eventLoops.shutdownGracefully()
            throw error
        }
        try? await calendars.transport.shutdown()
        try await eventLoops.shutdownGracefully()
        logger.info("stopped")
    }

    /// The method table with every method of this build.
    func makeDispatcher(
        store: any CatalogStore, queue: JobQueue? = nil, jobKinds: Set<String>? = nil, calendars: CalendarRuntime? = nil,
        linker: RecordingLinker? = nil, deviceAgentEndpoint: DeviceAgentEndpoint? = nil
    ) throws -> RPCDispatcher {
        let queue = queue ?? JobQueue(store: store, defaultMaxAttempts: configuration.jobs.maxAttempts)
        var table = RPCMethodTable()
        SystemMethods(
            store: store, startedAt: Date(), startedAtInstant: .now, configuration: configuration,
            openRPCDocument: try SystemMethods.loadOpenRPCDocument(), deviceAgentEndpoint: deviceAgentEndpoint
        ).register(in: &table)
        SystemDoctor(store: store, configuration: configuration, secretKeyPath: configuration.secretKeyPath(environment: environment))
            .register(in: &table)
        DeviceMethods(store: store, defaultTimeZone: configuration.calendarTimeZone.identifier, quotas: configuration.members)
            .register(in: &table)
        UserMethods(store: store).register(in: &table)
        AdminMethods(store: store, catalogFiles: [configuration.databasePath]).register(in: &table)
        recordingMethods(store: store, queue: queue).register(in: &table)
        AuditMethods(store: store).register(in: &table)
        PeopleMethods(store: store).register(in: &table)
        RetentionMethods(store: store, settings: configuration.retention, schedule: retentionSchedule, timeZone: configuration.links.timeZone)
            .register(in: &table)
        JobMethods(queue: queue, catalog: store, kinds: jobKinds ?? Set(jobHandlers(store: store, queue: queue).map(\.kind))).register(in: &table)
        AccountMethods(
            store: store, queue: queue, secrets: calendars?.secrets,
            providers: Set(calendars?.providers.map(\.kind) ?? [.ics, .caldav]), signIns: calendars?.signIns,
            transport: calendars?.transport, memberNetworks: configuration.calendars.memberNetworks, quotas: configuration.members
        ).register(in: &table)
        LinkMethods(store: store, queue: queue, linker: linker ?? RecordingLinker(store: store, policy: configuration.links.policy))
            .register(in: &table)
        MeetingMethods(store: store, writeBack: calendars?.writeBack, queue: queue).register(in: &table)
        let resolver = CallerResolver(store: store, daemonUID: getuid())
        return RPCDispatcher(methods: table, resolver: resolver, logger: logger)
    }
}
