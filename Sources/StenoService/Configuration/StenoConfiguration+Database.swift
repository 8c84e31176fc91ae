import Foundation
import StenoJSON
import StenoPostgres

/// Where the catalog lives: a SQLite file (the default) or a PostgreSQL server that several
/// daemons share.
///
///     database = "/var/lib/steno/catalog.sqlite"                   # SQLite (default: in data_dir)
///     database = "postgres://steno@db.example:5432/steno?sslmode=verify-full&sslrootcert=/etc/steno/db-ca.pem"
///     database_password_file = "/etc/steno/db-password"            # or the credential below
///
/// `STENO_DATABASE_URL` overrides the file. The password comes from the URL, else from
/// `database_password_file` (`STENO_DATABASE_PASSWORD_FILE`), else from the systemd credential
/// `steno-database-password` (`LoadCredential=` puts it in `$CREDENTIALS_DIRECTORY`). It is never
/// logged nor shown by `system.status`.
extension StenoConfiguration {
    /// The systemd credential holding the PostgreSQL password.
    static let databasePasswordCredential = "steno-database-password"

    /// Reads `database` when it is a PostgreSQL URL (true), leaving SQLite paths to the caller (false).
    mutating func applyDatabaseURL(_ value: String, origin: String) throws -> Bool {
        guard PostgresSettings.isURL(value) else { return false }
        do {
            postgres = try PostgresSettings.parse(url: value)
        } catch {
            throw ConfigurationError("\(origin): \(error)")
        }
        return true
    }

    /// Applies `STENO_DATABASE_URL` and fills in the PostgreSQL password from its file or
    /// credential when the URL holds none.
    mutating func resolveDatabase(environment: [String: String]) throws {
        if let url = environment["STENO_DATABASE_URL"].flatMap({ $0.isEmpty ? nil : $0 }) {
            guard try applyDatabaseURL(url, origin: "STENO_DATABASE_URL") else {
                throw ConfigurationError("STENO_DATABASE_URL must be a postgres:// URL (set `database` in the file for a SQLite path)")
            }
        }
        if let file = environment["STENO_DATABASE_PASSWORD_FILE"].flatMap({ $0.isEmpty ? nil : $0 }) {
            databasePasswordFile = file
        }
        guard var settings = postgres else {
            if databasePasswordFile != nil {
                throw ConfigurationError("database_password_file is set but `database` is not a postgres:// URL")
            }
            return
        }
        if settings.password == nil {
            let credential = environment["CREDENTIALS_DIRECTORY"].map { $0 + "/" + Self.databasePasswordCredential }
            if let file = databasePasswordFile {
                settings.password = try Self.readPassword(file, what: "database_password_file")
            } else if let credential, FileManager.default.fileExists(atPath: credential) {
                settings.password = try Self.readPassword(credential, what: "the systemd credential \(Self.databasePasswordCredential)")
            }
        }
        postgres = settings
    }

    /// The first line of a password file (a trailing newline is not part of the password).
    static func readPassword(_ path: String, what: String) throws -> String {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigurationError("\(what) \(path) cannot be read: \(error.localizedDescription)")
        }
        let password = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        guard !password.isEmpty else { throw ConfigurationError("\(what) \(path) is empty") }
        return password
    }

    /// Where the catalog is, for logs and status (never with a password).
    public var catalogDescription: String { postgres?.redactedURL ?? databasePath }
}
