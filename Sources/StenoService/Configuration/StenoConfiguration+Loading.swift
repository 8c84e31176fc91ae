import Foundation
import StenoJSON
import StenoTOML

extension StenoConfiguration {
    /// The settings a TOML file may hold, by their names in the file.
    static let fileKeys: Set<String> = [
        "socket", "socket_group", "socket_mode", "data_dir", "inbox", "database", "database_password_file", "log_level", "log_format", "rpc",
        "jobs", "schedule", "watcher", "calendars", "links", "device_agent", "members", "retention",
    ]
    static let rpcKeys: Set<String> = [
        "max_frame_bytes", "max_in_flight_per_connection", "threads", "max_running_per_uid", "max_connections_per_uid",
        "idle_timeout_seconds", "unmapped_idle_timeout_seconds",
    ]

    /// Resolves the configuration: flags > environment > file > defaults.
    ///
    /// Paths derived from the data folder (inbox, database) follow it when only it is set.
    public static func load(
        overrides: ConfigurationOverrides, environment: [String: String], uid: UInt32 = getuid()
    ) throws -> StenoConfiguration {
        var configuration = defaults(environment: environment, uid: uid)
        var explicitInbox = false
        var explicitDatabase = false

        if let file = overrides.configFile ?? environment["STENO_CONFIG"].flatMap({ $0.isEmpty ? nil : $0 }) {
            let text: String
            do {
                text = try String(contentsOfFile: file, encoding: .utf8)
            } catch {
                throw ConfigurationError("cannot read the configuration file \(file): \(error.localizedDescription)")
            }
            let table: JSONValue
            do {
                table = try TOMLReader.parse(text)
            } catch {
                throw ConfigurationError("\(file): \(error)")
            }
            (explicitInbox, explicitDatabase) = try configuration.apply(file: table, path: file)
        }

        let dataDirectory = overrides.dataDirectory ?? environment["STENO_DATA_DIR"].flatMap { $0.isEmpty ? nil : $0 }
        if let dataDirectory { configuration.dataDirectory = dataDirectory }
        if let socket = overrides.socketPath ?? environment["STENO_SOCKET"].flatMap({ $0.isEmpty ? nil : $0 }) {
            configuration.socketPath = socket
        }
        if let inbox = overrides.inboxDirectory ?? environment["STENO_INBOX"].flatMap({ $0.isEmpty ? nil : $0 }) {
            configuration.inboxDirectory = inbox
            explicitInbox = true
        }
        if let level = overrides.logLevel ?? environment["STENO_LOG_LEVEL"].flatMap({ $0.isEmpty ? nil : $0 }) {
            configuration.logLevel = level
        }
        if !explicitInbox { configuration.inboxDirectory = configuration.dataDirectory + "/inbox" }
        if !explicitDatabase { configuration.databasePath = configuration.dataDirectory + "/catalog.sqlite" }
        try configuration.resolveDatabase(environment: environment)
        configuration.makePathsAbsolute(relativeTo: FileManager.default.currentDirectoryPath)
        try configuration.validate()
        return configuration
    }

    /// Applies a parsed TOML table; returns whether it set the inbox and the database explicitly.
    mutating func apply(file table: JSONValue, path: String) throws -> (inbox: Bool, database: Bool) {
        guard case .object(let settings) = table else { throw ConfigurationError("\(path): expected a table of settings") }
        if let unknown = settings.keys.sorted().first(where: { !Self.fileKeys.contains($0) }) {
            throw ConfigurationError(
                "\(path): unknown setting \"\(unknown)\" (known: \(Self.fileKeys.sorted().joined(separator: ", ")))")
        }
        func string(_ key: String) throws -> String? {
            guard let value = settings[key] else { return nil }
            guard let string = value.stringValue else { throw ConfigurationError("\(path): \(key) must be a string") }
            return string
        }
        if let value = try string("socket") { socketPath = value }
        if let value = try string("socket_group") { socketGroup = value }
        if let value = try string("socket_mode") {
            guard let mode = UInt32(value, radix: 8), mode <= 0o777 else {
                throw ConfigurationError("\(path): socket_mode must be octal like \"0660\"")
            }
            // Access is decided per caller behind the socket; "others" would let every local account knock.
            guard mode & ~0o660 == 0 else {
                throw ConfigurationError("\(path): socket_mode \"\(value)\" gives access beyond owner and group; use at most \"0660\" and socket_group")
            }
            socketMode = mode
        }
        if let value = try string("data_dir") { dataDirectory = value }
        let inbox = try string("inbox")
        if let inbox { inboxDirectory = inbox }
        let database = try string("database")
        if let database, try !applyDatabaseURL(database, origin: "\(path): database") { databasePath = database }
        if let value = try string("database_password_file") { databasePasswordFile = value }
        if let value = try string("log_level") { logLevel = value }
        if let value = try string("log_format") {
            guard let format = LogFormat(rawValue: value) else {
                throw ConfigurationError("\(path): log_format must be text, json or auto")
            }
            logFormat = format
        }
        if let rpcTable = settings["rpc"] {
            guard case .object(let rpcSettings) = rpcTable else { throw ConfigurationError("\(path): [rpc] must be a table") }
            if let unknown = rpcSettings.keys.sorted().first(where: { !Self.rpcKeys.contains($0) }) {
                throw ConfigurationError("\(path): unknown setting \"rpc.\(unknown)\" (known: \(Self.rpcKeys.sorted().joined(separator: ", ")))")
            }
            func positive(_ key: String, in range: ClosedRange<Int64> = 0...Int64(Int32.max)) throws -> Int? {
                guard let value = rpcSettings[key] else { return nil }
                guard let number = value.intValue, range.contains(number) else {
                    throw ConfigurationError("\(path): rpc.\(key) must be an integer from \(range.lowerBound) to \(range.upperBound)")
                }
                return Int(number)
            }
            if let value = try positive("max_frame_bytes", in: 1024...(64 << 20)) { rpc.maxFrameBytes = value }
            if let value = try positive("max_in_flight_per_connection", in: 1...1024) { rpc.maxInFlightPerConnection = value }
            // Each thread is an event loop with its own stack: thousands exhaust the process.
            if let value = try positive("threads", in: 0...256) { rpc.threads = value }
            try applyRPCLimits(rpcSettings, path: path)
        }
        try applyJobs(file: settings, path: path)
        try applyWatcher(file: settings, path: path)
        try applyCalendars(file: settings, path: path)
        try applyLinks(file: settings, path: path)
        try applyDeviceAgent(file: settings, path: path)
        try applyMembers(file: settings, path: path)
        try applyRetention(file: settings, path: path)
        return (inbox != nil, database != nil)
    }

    /// Resolves relative paths (from flags or the environment) against the working folder.
    mutating func makePathsAbsolute(relativeTo directory: String) {
        func absolute(_ path: String) -> String {
            path.hasPrefix("/") ? path : URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: directory + "/")).standardizedFileURL.path
        }
        socketPath = absolute(socketPath)
        dataDirectory = absolute(dataDirectory)
        inboxDirectory = absolute(inboxDirectory)
        databasePath = absolute(databasePath)
    }

    /// Rejects values the daemon could not run with.
    func validate() throws {
        guard rpc.maxFrameBytes >= 1024 else { throw ConfigurationError("rpc.max_frame_bytes must be at least 1024") }
        guard rpc.maxInFlightPerConnection >= 1 else {
            throw ConfigurationError("rpc.max_in_flight_per_connection must be at least 1")
        }
        guard ["trace", "debug", "info", "notice", "warning", "error", "critical"].contains(logLevel) else {
            throw ConfigurationError("log level \"\(logLevel)\" is not one of trace, debug, info, notice, warning, error, critical")
        }
        for (name, path) in [("socket", socketPath), ("data_dir", dataDirectory), ("inbox", inboxDirectory), ("database", databasePath)]
        where !path.hasPrefix("/") {
            throw ConfigurationError("\(name) must be an absolute path, got \"\(path)\"")
        }
        try validateRetention()
    }
}
