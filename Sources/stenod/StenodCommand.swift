import ArgumentParser
import Foundation
import Logging
import StenoService

/// `stenod`: the Steno daemon.
@main
struct StenodCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stenod",
        abstract: "Catalogs meeting recordings and links them to calendar meetings; serves the steno CLI.",
        discussion: """
            Settings come from flags, then STENO_SOCKET / STENO_DATA_DIR / STENO_INBOX / STENO_LOG_LEVEL,
            then the TOML file (--config or STENO_CONFIG), then defaults. See deploy/stenod.toml.
            """,
        version: StenoVersion.current,
        subcommands: [CopyCatalogCommand.self]
    )

    @Option(name: .long, help: "TOML configuration file.")
    var config: String?

    @Option(name: .long, help: "Unix socket to listen on.")
    var socket: String?

    @Option(name: .customLong("data-dir"), help: "Folder for the catalog database and keys.")
    var dataDir: String?

    @Option(name: .long, help: "Inbox folder to watch for recordings.")
    var inbox: String?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: String?

    @Flag(
        name: .customLong("forget-credentials"),
        help: "Start although the secrets key is missing: a new key is made and accounts with stored credentials need them added again.")
    var forgetCredentials = false

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let configuration: StenoConfiguration
        do {
            configuration = try StenoConfiguration.load(
                overrides: ConfigurationOverrides(
                    configFile: config, socketPath: socket, dataDirectory: dataDir, inboxDirectory: inbox, logLevel: logLevel),
                environment: environment)
        } catch {
            FileHandle.standardError.write(Data("stenod: \(error)\n".utf8))
            throw ExitCode(78)  // EX_CONFIG
        }
        StenoLogHandler.bootstrap(
            level: Logger.Level(rawValue: configuration.logLevel) ?? .info, format: configuration.logFormat,
            environment: environment)
        do {
            try await StenoDaemon(configuration: configuration, environment: environment, forgetSealedCredentials: forgetCredentials).run()
        } catch {
            Logger(label: "stenod").critical("stenod cannot run: \(error)")
            throw ExitCode(1)
        }
    }
}
