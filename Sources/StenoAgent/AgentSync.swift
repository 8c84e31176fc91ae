import Foundation

/// The device agent's sync loop: brings Steno's changes to the device and the device's
/// changes to Steno, one ``run(now:)`` at a time (an app calls it on launch, on
/// `EKEventStoreChanged` and from a background refresh task).
///
/// A run:
/// 1. pulls `GET /sync/events/changes` since the saved `lastServerSyncAt`;
/// 2. applies it: the device's own events that Steno holds differently are updated (or
///    deleted when Steno's copy is), rows without `provider` are created on the device and
///    upserted back with `serverId`; other providers' events are not copied;
/// 3. pushes: scans the window (30 days back, 365 ahead by default) and upserts events new
///    to the loop or changed since the last scan, and deletions for events it knew that the
///    device no longer has (an event moved out of the window goes up moved, then is let go;
///    one deleted while out of the window stays on the server);
/// 4. saves both cursors and the events seen.
///
/// Events the loop itself wrote are not pushed back unless the user changed them since.
/// Runs are serialized: the actor finishes one before starting the next.
public actor AgentSync {
    /// The server connection.
    public let client: StenoAgentClient
    /// The device's calendars.
    public let store: any CalendarStore
    /// Where the cursors and seen events are kept between runs.
    public let stateStore: any AgentStateStore
    /// The device id, the window and the fallback calendar.
    public let configuration: AgentSyncConfiguration
    private var running = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// A loop over `store` for the device `configuration.deviceId`, talking through `client`.
    public init(client: StenoAgentClient, store: any CalendarStore, stateStore: any AgentStateStore, configuration: AgentSyncConfiguration) {
        self.client = client
        self.store = store
        self.stateStore = stateStore
        self.configuration = configuration
    }

    /// One run of the loop.
    ///
    /// Problems with single events do not stop it: they are in the report's `issues`.
    /// - Throws: ``AgentClientError`` when the server cannot be talked to (what was done before
    ///   is saved; the next run carries on from there), or the ``AgentStateStore``'s and
    ///   ``CalendarStore/events(in:)``'s errors.
    @discardableResult
    public func run(now: Date = Date()) async throws -> AgentSyncReport {
        await acquire()
        defer { release() }
        var state = try await stateStore.load()
        var report = AgentSyncReport()
        try await pull(&state, &report)
        try await push(&state, &report, now: now)
        return report
    }

    // MARK: - One run at a time

    /// Actors are reentrant at `await`: without this, two runs would interleave and push twice.
    private func acquire() async {
        guard running else {
            running = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func release() {
        if waiting.isEmpty {
            running = false
        } else {
            waiting.removeFirst().resume()
        }
    }

    // MARK: - Helpers for the stages

    var defaultTimeZone: TimeZone { configuration.defaultTimeZone }

    /// The error of a store call in a sentence (its `description` when it has one).
    static func describe(_ error: any Error) -> String {
        String(describing: error)
    }
}

/// Settings of the sync loop.
public struct AgentSyncConfiguration: Sendable, Hashable {
    /// The device's id from pairing: feed rows of `provider == "apple"` with this `device` are its own events.
    public var deviceId: Int64
    /// The scanned window: this many days before now …
    public var daysBack: Int
    /// … to this many days after.
    public var daysAhead: Int
    /// Where to create events Steno asks for when their row names no calendar, or one the
    /// device refuses (nil: such rows are reported and read again next run).
    public var fallbackCalendarId: String?
    /// The zone of events and rows without one.
    public var defaultTimeZone: TimeZone

    /// Settings for the device `deviceId` (from pairing); negative day counts count as 0.
    public init(
        deviceId: Int64, daysBack: Int = 30, daysAhead: Int = 365, fallbackCalendarId: String? = nil,
        defaultTimeZone: TimeZone = .current
    ) {
        self.deviceId = deviceId
        self.daysBack = max(0, daysBack)
        self.daysAhead = max(0, daysAhead)
        self.fallbackCalendarId = fallbackCalendarId
        self.defaultTimeZone = defaultTimeZone
    }

    /// The scan window around `now`.
    public func window(around now: Date) -> DateInterval {
        let day: TimeInterval = 86_400
        return DateInterval(start: now.addingTimeInterval(-Double(daysBack) * day), end: now.addingTimeInterval(Double(daysAhead) * day))
    }
}
