import Foundation
import Logging
import NIOSSL
import PostgresNIO
import StenoCatalog
import StenoCore

/// The catalog on a PostgreSQL server, which several stenod daemons on several machines may
/// share. SQLite (`SQLiteCatalog`) stays the embedded default; this implements the same store
/// protocols with the same semantics and visibility rules.
///
/// Opening starts a connection pool, applies the migrations of `Schema/postgres/` under an
/// advisory lock (daemons starting together migrate once; the others wait) and refuses a
/// database written by a newer Steno. All methods are safe to call from any task.
public struct PostgresCatalog: Sendable {
    /// The connection pool every method goes through.
    let client: PostgresClient
    /// Keeps the pool's background task alive as long as a copy of the catalog exists.
    let lifetime: ClientLifetime
    /// How the catalog was reached (the password is never printed).
    public let settings: PostgresSettings
    let logger: Logger
    /// The migrations this binary knows, in order.
    let knownMigrations: [String]
    /// Members' visible meetings and recordings, each for the snapshot it was read in.
    let visibleSets = VisibleSetCache<String>()

    /// Connects to the server named by `settings`, then brings the schema up to date.
    ///
    /// - Throws: `StoreError.schemaTooNew` for a database migrated by a newer Steno;
    ///   `StoreError.unavailable` when the server cannot be reached within `connect_timeout`;
    ///   ``PostgresCatalogError`` for settings that cannot work.
    public static func open(_ settings: PostgresSettings, logger: Logger = Logger(label: "steno.postgres")) async throws -> PostgresCatalog {
        // The pool logs every failed connection attempt at info: while the server is down that
        // is several a second; the daemon's loops say it once per outage instead.
        var poolLogger = logger
        if poolLogger.logLevel < .notice { poolLogger.logLevel = .notice }
        let client = PostgresClient(configuration: try clientConfiguration(settings), backgroundLogger: poolLogger)
        let lifetime = ClientLifetime(client)
        let catalog = PostgresCatalog(
            client: client, lifetime: lifetime, settings: settings, logger: logger,
            knownMigrations: PostgresMigrations.files.map(\.identifier))
        do {
            // Fails within connect_timeout, clearly, when nothing answers (see withLeasedConnection).
            try await catalog.execute("SELECT 1")
            try await PostgresMigrations.apply(to: catalog)
        } catch {
            lifetime.stop()
            throw error
        }
        return catalog
    }

    /// Closes the pool. Calls made afterwards fail.
    public func close() {
        lifetime.stop()
    }

    static func clientConfiguration(_ settings: PostgresSettings) throws -> PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        if settings.isUnixSocket {
            configuration = .init(
                unixSocketPath: settings.socketPath, username: settings.user, password: settings.password, database: settings.database)
        } else {
            configuration = .init(
                host: settings.host, port: settings.port, username: settings.user, password: settings.password,
                database: settings.database, tls: try tls(settings))
        }
        configuration.options.maximumConnections = settings.poolSize
        configuration.options.minimumConnections = 0
        configuration.options.connectTimeout = settings.connectTimeout
        // No JIT compilation: the catalog's statements are short, and the planner's estimates
        // for a listing stopped by LIMIT easily pass JIT's threshold, which then spent 40-150 ms
        // compiling a query that reads fifty rows in a few milliseconds.
        configuration.options.additionalStartupParameters = [("application_name", "stenod"), ("jit", "off")]
        return configuration
    }

    static func tls(_ settings: PostgresSettings) throws -> PostgresClient.Configuration.TLS {
        var unverified = TLSConfiguration.makeClientConfiguration()
        // libpq's prefer and require encrypt without checking who answers; verify-full checks.
        unverified.certificateVerification = .none
        switch settings.tls {
        case .disable:
            return .disable
        case .prefer:
            return .prefer(unverified)
        case .require:
            return .require(unverified)
        case .verifyFull:
            var verified = TLSConfiguration.makeClientConfiguration()
            verified.certificateVerification = .fullVerification
            if let caFile = settings.caFile {
                guard FileManager.default.isReadableFile(atPath: caFile) else {
                    throw PostgresCatalogError.unusableSettings("the CA file \(caFile) cannot be read")
                }
                verified.trustRoots = .file(caFile)
            }
            return .require(verified)
        }
    }
}

/// Runs the pool's background work in a task of its own and cancels it when the last copy of
/// the catalog is gone (or on ``stop()``).
final class ClientLifetime: Sendable {
    private let task: Task<Void, Never>

    init(_ client: PostgresClient) {
        task = Task { await client.run() }
    }

    func stop() { task.cancel() }

    deinit { task.cancel() }
}

/// A PostgreSQL failure the operator can act on.
public enum PostgresCatalogError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The settings cannot work (a CA file that cannot be read, say).
    case unusableSettings(String)

    public var description: String {
        switch self {
        case .unusableSettings(let reason): "the PostgreSQL settings cannot be used: \(reason)"
        }
    }
}

/// Every store protocol, each in its own `PostgresCatalog+Topic.swift` file.
extension PostgresCatalog: CatalogStore {}
