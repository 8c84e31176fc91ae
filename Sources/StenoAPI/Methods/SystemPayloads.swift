import Foundation
import StenoCore

/// The result of `system.version`.
public struct VersionInfo: Codable, Sendable, Hashable {
    /// The daemon's release, e.g. `0.1.0`.
    public var version: String
    /// The JSON-RPC API generation; bumped on incompatible changes.
    public var apiVersion: Int

    public init(version: String, apiVersion: Int) {
        self.version = version
        self.apiVersion = apiVersion
    }
}

/// The result of `system.status`.
public struct SystemStatus: Codable, Sendable, Hashable {
    /// The daemon's release.
    public var version: String
    /// When the daemon started.
    public var startedAt: Date
    /// Seconds since the daemon started.
    public var uptimeSeconds: Double
    /// The last migration applied to the catalog (e.g. 1 for `0001_catalog.sql`).
    public var schemaVersion: Int
    /// The catalog's SQLite file.
    public var databasePath: String
    /// The socket the daemon listens on.
    public var socketPath: String
    /// The inbox folder being watched.
    public var inboxPath: String
    /// Rows per table (`users`, `recordings`, `events`, `jobs`, …); empty for members, as
    /// they describe everyone's catalog.
    public var counts: [String: Int64]
    /// Jobs waiting or running.
    public var queueDepth: Int64
    /// Who the daemon thinks the caller is.
    public var caller: CallerInfo
    /// Where the device agent's HTTP listener is bound (`127.0.0.1:8787`, `unix:/path`), with
    /// `https://` or `http://`; nil when it is off.
    public var deviceAgent: String?

    public init(
        version: String, startedAt: Date, uptimeSeconds: Double, schemaVersion: Int, databasePath: String,
        socketPath: String, inboxPath: String, counts: [String: Int64], queueDepth: Int64, caller: CallerInfo,
        deviceAgent: String? = nil
    ) {
        self.deviceAgent = deviceAgent
        self.version = version
        self.startedAt = startedAt
        self.uptimeSeconds = uptimeSeconds
        self.schemaVersion = schemaVersion
        self.databasePath = databasePath
        self.socketPath = socketPath
        self.inboxPath = inboxPath
        self.counts = counts
        self.queueDepth = queueDepth
        self.caller = caller
    }
}

/// The caller as the daemon sees them: their uid (from the socket's peer credentials),
/// the user it maps to, and their role.
public struct CallerInfo: Codable, Sendable, Hashable {
    /// The Unix uid of the connecting process.
    public var uid: UInt32
    /// The user name the uid maps to; nil for root or the daemon's own uid without a user.
    public var user: String?
    /// The effective role.
    public var role: Role

    public init(uid: UInt32, user: String?, role: Role) {
        self.uid = uid
        self.user = user
        self.role = role
    }
}

/// Params of `admin.backup`.
public struct BackupParams: Codable, Sendable, Hashable {
    /// Absolute path of the file to create on the daemon's machine; must not exist yet.
    public var path: String
    /// Once the copy is written, remove the catalog copies in the same folder last written
    /// more than this many days ago (a backup keeps what was deleted since, until it goes).
    public var pruneOlderThanDays: Int?

    public init(path: String, pruneOlderThanDays: Int? = nil) {
        self.path = path
        self.pruneOlderThanDays = pruneOlderThanDays
    }
}

/// The result of `admin.backup`.
public struct BackupResult: Codable, Sendable, Hashable {
    /// The file written.
    public var path: String
    /// Its size in bytes.
    public var bytes: Int64
    /// How long the copy took.
    public var durationSeconds: Double
    /// The older copies removed (with `pruneOlderThanDays`), ascending.
    public var pruned: [String]?

    public init(path: String, bytes: Int64, durationSeconds: Double, pruned: [String]? = nil) {
        self.path = path
        self.bytes = bytes
        self.durationSeconds = durationSeconds
        self.pruned = pruned
    }
}
