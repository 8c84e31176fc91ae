import ArgumentParser
import Foundation
import StenoPostgres
import StenoService

/// `stenod copy-catalog --to postgres://…`: moves the SQLite catalog to PostgreSQL.
struct CopyCatalogCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy-catalog",
        abstract: "Copy the SQLite catalog into an empty PostgreSQL database (stop stenod first).",
        discussion: """
            Reads the SQLite catalog of the configuration (or --from) and writes every table into the
            PostgreSQL database of --to in one transaction, then checks the row counts and prints the
            next steps. The password comes from the URL, --password-file, STENO_DATABASE_PASSWORD_FILE
            or the systemd credential steno-database-password.

            Example:
              sudo -u steno stenod copy-catalog --config /etc/steno/stenod.toml \\
                  --to postgres://steno@db.example/steno?sslmode=verify-full --password-file /etc/steno/db-password
            """
    )

    @Option(name: .long, help: "TOML configuration file (for the SQLite path and the socket).")
    var config: String?

    @Option(name: .long, help: "The SQLite catalog to copy (default: the configured one).")
    var from: String?

    @Option(name: .long, help: "The PostgreSQL catalog to fill: postgres://USER@HOST[:PORT]/DATABASE[?sslmode=…].")
    var to: String

    @Option(name: .customLong("password-file"), help: "A file holding the PostgreSQL password.")
    var passwordFile: String?

    func run() async throws {
        var environment = ProcessInfo.processInfo.environment
        // The configured catalog is the source; the target comes from --to only.
        environment["STENO_DATABASE_URL"] = to
        if let passwordFile { environment["STENO_DATABASE_PASSWORD_FILE"] = passwordFile }
        let copy: CatalogCopy
        do {
            let configuration = try StenoConfiguration.load(overrides: ConfigurationOverrides(configFile: config), environment: environment)
            let source = try StenoConfiguration.load(
                overrides: ConfigurationOverrides(configFile: config),
                environment: environment.filter { !["STENO_DATABASE_URL", "STENO_DATABASE_PASSWORD_FILE"].contains($0.key) })
            guard let target = configuration.postgres else { throw ValidationError("--to must be a postgres:// URL") }
            guard source.postgres == nil || from != nil else {
                throw ValidationError("the configuration already names a PostgreSQL catalog: give the SQLite file with --from")
            }
            copy = CatalogCopy(sourcePath: from ?? source.databasePath, target: target, socketPath: source.socketPath)
        } catch let error as ValidationError {
            throw error
        } catch {
            FileHandle.standardError.write(Data("stenod copy-catalog: \(error)\n".utf8))
            throw ExitCode(78)  // EX_CONFIG
        }
        do {
            _ = try await copy.run { print($0) }
            print(copy.nextSteps())
        } catch {
            FileHandle.standardError.write(Data("stenod copy-catalog: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}
