import Foundation

/// Where the PostgreSQL catalog lives and how to reach it, read from a connection URL:
///
///     postgres://steno@db.example:5432/steno?sslmode=verify-full&sslrootcert=/etc/steno/db-ca.pem
///     postgres://steno@/steno?host=/run/postgresql&port=5432  (a Unix socket directory)
///
/// The password may be in the URL, but an operator should rather give it as a file (or a
/// systemd credential): the URL ends up in shells' histories and process lists. It never
/// appears in ``redactedURL`` or ``description``.
public struct PostgresSettings: Sendable, Hashable, CustomStringConvertible {
    /// How the connection is encrypted, with libpq's names for the modes.
    public enum TLSMode: String, Sendable, Hashable, CaseIterable {
        /// Plain TCP.
        case disable
        /// TLS when the server offers it, unverified; plain otherwise.
        case prefer
        /// TLS or no connection, unverified (protects against eavesdropping only).
        case require
        /// TLS with the server's certificate checked against the CA and its host name.
        case verifyFull = "verify-full"
    }

    /// A host name or address, or (starting with `/`) the directory of the server's Unix socket.
    public var host: String
    public var port: Int
    public var user: String
    public var database: String
    /// Never printed.
    public var password: String?
    public var tls: TLSMode
    /// PEM file of the certificate authorities trusted for `verify-full` (the system's when nil).
    public var caFile: String?
    /// Connections this daemon keeps at most.
    public var poolSize: Int
    /// How long to wait for a connection before telling the caller the server does not answer.
    public var connectTimeout: Duration = .seconds(10)

    public init(
        host: String, port: Int = 5432, user: String, database: String, password: String? = nil,
        tls: TLSMode = .prefer, caFile: String? = nil, poolSize: Int = 10
    ) {
        self.host = host
        self.port = port
        self.user = user
        self.database = database
        self.password = password
        self.tls = tls
        self.caFile = caFile
        self.poolSize = poolSize
    }

    /// Whether `text` names a PostgreSQL catalog rather than a SQLite file.
    public static func isURL(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    /// Reads a connection URL.
    ///
    /// - Throws: ``PostgresSettingsError`` naming what is wrong (never echoing a password).
    public static func parse(url text: String) throws(PostgresSettingsError) -> PostgresSettings {
        guard isURL(text) else { throw .notPostgresURL }
        guard let components = URLComponents(string: text) else { throw .malformed("it is not a valid URL") }
        guard let user = components.user.map({ $0.removingPercentEncoding ?? $0 }), !user.isEmpty else {
            throw .malformed("it names no user (postgres://USER@HOST/DATABASE)")
        }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else {
            throw .malformed("it names no database (postgres://USER@HOST/DATABASE)")
        }
        var settings = PostgresSettings(
            host: components.host ?? "", port: components.port ?? 5432, user: user,
            database: database.removingPercentEncoding ?? database,
            password: components.password.map { $0.removingPercentEncoding ?? $0 })
        for item in components.queryItems ?? [] {
            let value = item.value ?? ""
            switch item.name {
            case "sslmode":
                guard let mode = TLSMode(rawValue: value) else {
                    throw .malformed("sslmode \"\(value)\" is not one of \(TLSMode.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                settings.tls = mode
            case "sslrootcert":
                settings.caFile = value
            case "host":
                settings.host = value
            case "port":
                guard let port = Int(value), (1...65_535).contains(port) else { throw .malformed("port must be a number from 1 to 65535") }
                settings.port = port
            case "connect_timeout":
                guard let seconds = Int(value), (1...600).contains(seconds) else {
                    throw .malformed("connect_timeout must be a number of seconds from 1 to 600")
                }
                settings.connectTimeout = .seconds(seconds)
            case "pool_size", "pool_max_conns":
                guard let size = Int(value), (1...200).contains(size) else {
                    throw .malformed("\(item.name) must be a number from 1 to 200")
                }
                settings.poolSize = size
            default:
                throw .malformed("unknown parameter \"\(item.name)\" (known: sslmode, sslrootcert, host, port, pool_size, connect_timeout)")
            }
        }
        if settings.host.isEmpty { throw .malformed("it names no host (postgres://USER@HOST/DATABASE, or ?host=/socket/dir)") }
        if settings.isUnixSocket && settings.tls == .verifyFull {
            throw .malformed("sslmode verify-full needs a host name, not a Unix socket")
        }
        return settings
    }

    /// Whether ``host`` is a Unix socket directory.
    public var isUnixSocket: Bool { host.hasPrefix("/") }

    /// The socket file in ``host``'s directory, as libpq names it.
    public var socketPath: String { host + "/.s.PGSQL.\(port)" }

    /// The URL without the password, for logs and status.
    public var redactedURL: String {
        var text = "postgres://\(user)@"
        text += isUnixSocket ? "/\(database)?host=\(host)&port=\(port)" : "\(host.contains(":") ? "[\(host)]" : host):\(port)/\(database)"
        if !isUnixSocket && tls != .prefer { text += "?sslmode=\(tls.rawValue)" }
        return text
    }

    public var description: String { redactedURL }
}

/// Why a connection URL was refused.
public enum PostgresSettingsError: Error, Sendable, Hashable, CustomStringConvertible {
    case notPostgresURL
    case malformed(String)

    public var description: String {
        switch self {
        case .notPostgresURL: "a PostgreSQL catalog is named by a URL starting with postgres://"
        case .malformed(let reason): "the PostgreSQL URL cannot be used: \(reason)"
        }
    }
}
