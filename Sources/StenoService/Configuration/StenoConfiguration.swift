import Foundation
import StenoAPI
import StenoPostgres

/// Everything `stenod` can be told, with a default that works for a single user.
///
/// Sources, strongest first: command-line flags, `STENO_*` environment variables, the TOML
/// file (`--config`, else `STENO_CONFIG`), then the defaults of `DefaultPaths`.
public struct StenoConfiguration: Sendable, Hashable {
    /// The Unix socket the JSON-RPC server listens on.
    public var socketPath: String
    /// A group (name or gid) given the socket, so its members may connect; nil keeps the daemon's group.
    public var socketGroup: String?
    /// The socket's permission bits (default 0660: owner and group).
    public var socketMode: UInt32
    /// The folder holding the catalog database and the secrets key.
    public var dataDirectory: String
    /// The watched inbox folder.
    public var inboxDirectory: String
    /// The catalog file; by default `catalog.sqlite` in the data folder. Unused when ``postgres`` is set.
    public var databasePath: String
    /// The PostgreSQL catalog (`database = "postgres://…"`), nil for SQLite.
    public var postgres: PostgresSettings?
    /// A file holding the PostgreSQL password (`database_password_file`).
    public var databasePasswordFile: String?
    /// Minimum log level (`trace` … `critical`).
    public var logLevel: String
    /// `text`, `json`, or `auto` (JSON when running under systemd, text otherwise).
    public var logFormat: LogFormat
    /// JSON-RPC server limits.
    public var rpc: RPCSettings
    /// The job worker pool (`[jobs]`).
    public var jobs = JobSettings()
    /// How the inbox is watched (`[watcher]`).
    public var watcher = InboxWatcherSettings()
    /// Cron schedules that enqueue jobs (`[[schedule]]`).
    public var schedules: [ScheduleSettings] = []
    /// Calendar mirroring (`[calendars]`).
    public var calendars = CalendarSettings()
    /// Linking and revalidation (`[links]`).
    public var links = LinkSettings()
    /// What the catalog forgets by itself (`[retention]`).
    public var retention = RetentionSettings()
    /// The device agent's HTTP listener (`[device_agent]`).
    public var deviceAgent = DeviceAgentSettings()
    /// What one member may own (`[members]`).
    public var members = MemberQuotas()

    /// How log lines are written.
    public enum LogFormat: String, Sendable, Hashable, Codable, CaseIterable {
        case text, json, auto
    }

    /// Limits of the JSON-RPC server.
    public struct RPCSettings: Sendable, Hashable {
        /// The largest request line accepted; longer ones are answered with an error.
        public var maxFrameBytes: Int = 1 << 20
        /// Requests of one connection processed at once; more wait (pipelining stays possible).
        public var maxInFlightPerConnection: Int = 32
        /// Event-loop threads; 0 means half the cores (at least one).
        public var threads: Int = 0
        /// Requests of one uid running at once across its connections; more wait their turn.
        public var maxRunningPerUID: Int = 4
        /// Connections one uid may hold open; the next is answered with an error and closed.
        public var maxConnectionsPerUID: Int = 64
        /// Seconds a mapped user's connection may stay open with nothing running or received.
        public var idleTimeoutSeconds: Int = 300
        /// The same for uids that are no user: they may only ask for the version and the schema.
        public var unmappedIdleTimeoutSeconds: Int = 10

        public init() {}
    }

    /// The defaults for a process with this environment and uid.
    public static func defaults(environment: [String: String], uid: UInt32 = getuid()) -> StenoConfiguration {
        let dataDirectory = DefaultPaths.dataDirectory(environment: environment, uid: uid)
        return StenoConfiguration(
            socketPath: DefaultPaths.socketPath(environment: environment, uid: uid),
            socketGroup: nil,
            socketMode: 0o660,
            dataDirectory: dataDirectory,
            inboxDirectory: dataDirectory + "/inbox",
            databasePath: dataDirectory + "/catalog.sqlite",
            logLevel: "info",
            logFormat: .auto,
            rpc: RPCSettings()
        )
    }
}

/// Settings given on the command line; nil means "not given".
public struct ConfigurationOverrides: Sendable, Hashable {
    public var configFile: String?
    public var socketPath: String?
    public var dataDirectory: String?
    public var inboxDirectory: String?
    public var logLevel: String?

    public init(
        configFile: String? = nil, socketPath: String? = nil, dataDirectory: String? = nil,
        inboxDirectory: String? = nil, logLevel: String? = nil
    ) {
        self.configFile = configFile
        self.socketPath = socketPath
        self.dataDirectory = dataDirectory
        self.inboxDirectory = inboxDirectory
        self.logLevel = logLevel
    }
}

/// A configuration problem, with the file and setting at fault.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
