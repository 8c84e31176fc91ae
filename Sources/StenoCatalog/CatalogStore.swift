import Foundation
import StenoCore

/// Users: who may connect, what they own.
public protocol UserStore: Sendable {
    /// Adds a user. Throws `.conflict` when the name, an email or a uid is taken.
    func addUser(_ draft: UserDraft) async throws -> User
    /// The user named by `reference`: a name, an email, or a numeric id.
    func user(matching reference: String) async throws -> User
    /// The user a Unix uid belongs to, if any.
    func user(forUID uid: UInt32) async throws -> User?
    /// Users ordered by id, starting after `afterID`.
    func users(afterID: Int64?, limit: Int) async throws -> [User]
    /// Applies a change. Throws `.conflict` like `addUser`.
    func updateUser(id: Int64, _ change: UserChange) async throws -> User
    /// Removes a user and returns them as they were.
    func removeUser(id: Int64) async throws -> User
}

/// What `system.status` reports about the catalog.
public protocol CatalogStatusStore: Sendable {
    /// Row counts and schema facts; cheap to call often.
    func statistics() async throws -> CatalogStatistics
}

/// Consistent copies of the catalog while it is in use.
public protocol BackupStore: Sendable {
    /// Writes a consistent copy to `path` (which must not exist) and returns its size in bytes.
    func backup(to path: String) async throws -> Int64
}

/// The catalog as the service uses it. SQLite (`SQLiteCatalog`) is the embedded default; the
/// protocols are narrow enough for a PostgreSQL implementation shared by several daemons.
public protocol CatalogStore: UserStore, CatalogStatusStore, BackupStore, JobQueueStore, CalendarStore, LinkStore, MeetingStore, DeviceStore, IngestStore, JobArrivalStore, ScheduledJobStore, LeaseStore, DeviceSignInStore, HistorySpanStore, RecordingDeletionStore, RetentionStore, AccessLogStore, PeopleStore {}

/// Row counts and schema facts.
public struct CatalogStatistics: Sendable, Hashable {
    /// The number of the last migration applied (1 for `0001_…`).
    public var schemaVersion: Int
    /// Where the catalog lives (a file path, or a connection description).
    public var location: String
    /// Rows per table.
    public var counts: [String: Int64]
    /// Jobs queued, waiting to retry, or running.
    public var queueDepth: Int64

    /// The tables whose row counts `system.status` reports, on every backend.
    package static let countedTables = [
        "users", "calendar_accounts", "calendars", "events", "meetings", "recordings",
        "recording_paths", "links", "link_history", "jobs",
    ]

    public init(schemaVersion: Int, location: String, counts: [String: Int64], queueDepth: Int64) {
        self.schemaVersion = schemaVersion
        self.location = location
        self.counts = counts
        self.queueDepth = queueDepth
    }
}
