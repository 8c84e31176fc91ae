import Foundation
import Logging
import StenoCatalog
import StenoPostgres
import StenoSQLite

/// `stenod copy-catalog`: moves the embedded SQLite catalog into an empty PostgreSQL database,
/// so several daemons can share it. Users, accounts with their sealed secrets (the secrets key
/// stays the same file, which every daemon needs), the calendar mirror, meetings, links and
/// their history, recordings with their paths, devices and jobs are copied in one transaction;
/// every table's row count is checked; the operator is told what to do next.
public struct CatalogCopy: Sendable {
    /// The SQLite catalog to read.
    public var sourcePath: String
    /// The PostgreSQL catalog to fill (its password resolved already).
    public var target: PostgresSettings
    /// The daemon's socket: when a daemon answers there, its catalog is still changing.
    public var socketPath: String

    public init(sourcePath: String, target: PostgresSettings, socketPath: String) {
        self.sourcePath = sourcePath
        self.target = target
        self.socketPath = socketPath
    }

    /// Copies and returns the report; `say` receives one line per step.
    ///
    /// - Throws: ``CatalogCopyError`` when the daemon still runs or the source is missing;
    ///   `StoreError.failedPrecondition` when the target is not empty or a count differs.
    public func run(say: @Sendable (String) -> Void) async throws -> CatalogCopyReport {
        guard !UnixSocketListener.isAcceptingConnections(socketPath) else {
            throw CatalogCopyError("stenod still answers on \(socketPath): stop it first (`systemctl stop stenod`), so nothing changes during the copy")
        }
        guard FileManager.default.fileExists(atPath: sourcePath) else {
            throw CatalogCopyError("there is no SQLite catalog at \(sourcePath) (use --from PATH)")
        }
        let source = try await SQLiteCatalog.open(path: sourcePath)
        say("copying \(sourcePath) to \(target.redactedURL)")
        let catalog = try await PostgresCatalog.open(target, logger: Logger(label: "steno.copy-catalog"))
        defer { catalog.close() }
        return try await catalog.copy(from: source) { table, rows in say("  \(table): \(rows) row(s)") }
    }

    /// What to do once the copy is in.
    public func nextSteps() -> String {
        """
        Done: every table's row count matches the SQLite catalog.
        Next:
          1. In /etc/steno/stenod.toml set   database = "\(target.redactedURL)"
             and give the password as database_password_file (or the systemd credential steno-database-password).
          2. Copy the secrets key (secrets.key in the data folder) to every machine that runs stenod: it opens the sealed calendar credentials.
          3. Start stenod (`systemctl start stenod`) and check `steno status`.
          Keep \(sourcePath) as a backup until you are satisfied; stenod no longer reads it.
        """
    }
}

/// Why a copy cannot start.
public struct CatalogCopyError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
