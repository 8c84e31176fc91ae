import Foundation

/// What the sync loop remembers between runs: both cursors and the events it has seen.
/// Codable, so an app can keep it in a file or `UserDefaults` through an ``AgentStateStore``.
public struct AgentSyncState: Codable, Sendable, Hashable {
    /// The `serverTime` of the last changes feed read to its end (epoch ms): the next `since`.
    public var lastServerSyncAt: Int64?
    /// When the last push scanned the device (epoch ms, the device's clock): events stamped
    /// before it and already known are not looked at again.
    public var lastAppleSyncAt: Int64?
    /// The events the server holds as the device last sent (or the loop last wrote) them, by
    /// ``EventKey/description``: one missing from a later scan that the device no longer has
    /// was deleted.
    public var known: [String: KnownEvent]
    /// Events created on the device for feed rows (row id → the new event's key) whose upsert
    /// back with `serverId` has not been confirmed yet: never created twice, sent again next run.
    public var pendingLinks: [String: EventKey]

    /// A state; a fresh one (no cursors, nothing seen) by default.
    public init(
        lastServerSyncAt: Int64? = nil, lastAppleSyncAt: Int64? = nil, known: [String: KnownEvent] = [:],
        pendingLinks: [String: EventKey] = [:]
    ) {
        self.lastServerSyncAt = lastServerSyncAt
        self.lastAppleSyncAt = lastAppleSyncAt
        self.known = known
        self.pendingLinks = pendingLinks
    }

    /// Remembers `event` as what the server holds now.
    mutating func remember(_ event: DeviceEvent, defaultTimeZone: TimeZone) {
        known[event.key.description] = KnownEvent(event, defaultTimeZone: defaultTimeZone)
    }

    /// Forgets an event (deleted on both sides).
    mutating func forget(_ key: EventKey) {
        known[key.description] = nil
    }

    /// Whether the server already holds `event` exactly as it is now.
    func isCurrent(_ event: DeviceEvent) -> Bool {
        guard let entry = known[event.key.description] else { return false }
        return entry.fingerprint == KnownEvent.fingerprint(of: event)
    }
}

/// One event as the server last got it from the device.
public struct KnownEvent: Codable, Sendable, Hashable {
    /// The event's identity on the device.
    public var externalId: String
    public var occurrenceDate: Int64?
    /// Its instants then (epoch ms): a deletion is looked for only while they overlap the scan's window.
    public var start: Int64?
    /// The end instant (epoch ms).
    public var end: Int64?
    /// `externalUpdatedAt` then.
    public var externalUpdatedAt: Int64?
    /// A stable hash of what it said then (its stamps and `serverId` left out): an event whose
    /// stamp moved but whose content did not (the loop's own write) is not sent again.
    public var fingerprint: UInt64

    /// The entry for `event` as it is now (its zone, else `defaultTimeZone`, for its instants).
    public init(_ event: DeviceEvent, defaultTimeZone: TimeZone) {
        externalId = event.externalId
        occurrenceDate = event.occurrenceDate
        let interval = event.interval(defaultTimeZone: defaultTimeZone)
        start = interval.map { EpochMilliseconds.from($0.start) }
        end = interval.map { EpochMilliseconds.from($0.end) }
        externalUpdatedAt = event.externalUpdatedAt
        fingerprint = Self.fingerprint(of: event)
    }

    /// The event's key.
    public var key: EventKey { EventKey(externalId: externalId, occurrenceDate: occurrenceDate) }

    /// Whether the event's instants, as known, overlap `window` (unknown instants: yes).
    func overlaps(_ window: DateInterval) -> Bool {
        guard let start, let end else { return true }
        let windowStart = EpochMilliseconds.from(window.start), windowEnd = EpochMilliseconds.from(window.end)
        return start < windowEnd && (end > windowStart || start == windowStart)
    }

    /// FNV-1a over the event's JSON with sorted keys: the same on every run and device,
    /// unlike `Hasher`.
    static func fingerprint(of event: DeviceEvent) -> UInt64 {
        var content = event
        content.externalUpdatedAt = nil
        content.serverId = nil
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let bytes = (try? encoder.encode(content)) ?? Data(event.externalId.utf8)
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}

/// Where the sync loop keeps its ``AgentSyncState`` between runs.
public protocol AgentStateStore: Sendable {
    /// The saved state; a fresh one when nothing was saved yet.
    func load() async throws -> AgentSyncState
    /// Replaces the saved state.
    func save(_ state: AgentSyncState) async throws
}

/// An ``AgentStateStore`` in memory (tests; apps keep theirs in a file).
public actor InMemoryAgentStateStore: AgentStateStore {
    /// The state as last saved.
    public private(set) var state: AgentSyncState
    /// How many times it was saved.
    public private(set) var saves = 0

    /// A store holding `state`.
    public init(_ state: AgentSyncState = AgentSyncState()) {
        self.state = state
    }

    /// The state as last saved.
    public func load() -> AgentSyncState { state }

    /// Keeps `state` and counts the save.
    public func save(_ state: AgentSyncState) {
        self.state = state
        saves += 1
    }
}

/// An ``AgentStateStore`` in a JSON file, written atomically (e.g. in the app's Application Support folder).
public struct FileAgentStateStore: AgentStateStore {
    /// The JSON file.
    public let url: URL

    /// A store in the file at `url` (its folder must exist).
    public init(url: URL) { self.url = url }

    /// The saved state; a fresh one when the file does not exist yet.
    public func load() throws -> AgentSyncState {
        guard FileManager.default.fileExists(atPath: url.path) else { return AgentSyncState() }
        return try JSONDecoder().decode(AgentSyncState.self, from: Data(contentsOf: url))
    }

    /// Writes `state` to the file atomically.
    public func save(_ state: AgentSyncState) throws {
        try JSONEncoder().encode(state).write(to: url, options: .atomic)
    }
}
