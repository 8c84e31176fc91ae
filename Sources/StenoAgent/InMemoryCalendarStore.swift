import Foundation

/// A ``CalendarStore`` held in memory: the tests' iPhone, and a reference for apps writing
/// one over EventKit.
///
/// Like EventKit it assigns `externalId`s to new events (`MEM-1`, `MEM-2`, …) and moves an
/// event's `externalUpdatedAt` forward on every change, strictly increasing even within one
/// millisecond. Tests play the user with ``add(_:)``, ``edit(_:_:)`` and ``remove(_:)``.
public actor InMemoryCalendarStore: CalendarStore {
    /// Calendar identifiers and their titles.
    public private(set) var calendars: [String: String]
    private var storedEvents: [EventKey: DeviceEvent] = [:]
    private var nextIdentifier = 1
    private var lastStamp: Int64 = 0
    private let prefix: String
    private let defaultTimeZone: TimeZone

    /// An empty store with `calendars` (identifier → title).
    public init(calendars: [String: String] = [:], identifierPrefix: String = "MEM", defaultTimeZone: TimeZone = .current) {
        self.calendars = calendars
        self.prefix = identifierPrefix
        self.defaultTimeZone = defaultTimeZone
    }

    // MARK: - The user's side

    /// Adds a calendar.
    public func addCalendar(id: String, title: String) {
        calendars[id] = title
    }

    /// Adds `event` as the user would, stamping it now; an empty `externalId` gets a new one.
    /// Returns it as stored.
    @discardableResult
    public func add(_ event: DeviceEvent) -> DeviceEvent {
        var event = event
        if event.externalId.isEmpty { event.externalId = newIdentifier() }
        if let calendar = event.externalCalendarId, event.calendarTitle == nil { event.calendarTitle = calendars[calendar] }
        event.externalUpdatedAt = stamp()
        storedEvents[event.key] = event
        return event
    }

    /// Edits an event as the user would (stamping it now); returns it as stored, nil when there is none.
    @discardableResult
    public func edit(_ key: EventKey, _ change: @Sendable (inout DeviceEvent) -> Void) -> DeviceEvent? {
        guard var event = storedEvents[key] else { return nil }
        change(&event)
        event.externalId = key.externalId
        event.occurrenceDate = key.occurrenceDate
        event.externalUpdatedAt = stamp()
        storedEvents[key] = event
        return event
    }

    /// Deletes an event as the user would (without `occurrenceDate`: every occurrence);
    /// returns whether there was one.
    @discardableResult
    public func remove(_ key: EventKey) -> Bool {
        let matching = storedEvents.keys.filter { Self.matches($0, key) }
        for found in matching { storedEvents[found] = nil }
        return !matching.isEmpty
    }

    /// Every event, by key.
    public var allEvents: [DeviceEvent] {
        storedEvents.values.sorted { $0.key < $1.key }
    }

    // MARK: - CalendarStore

    /// The events overlapping `window` (an event starting at its start included).
    public func events(in window: DateInterval) -> [DeviceEvent] {
        allEvents.filter { event in
            guard let interval = event.interval(defaultTimeZone: defaultTimeZone) else { return false }
            // An instant event at the window's start counts; otherwise the usual half-open overlap.
            return interval.start < window.end && (interval.end > window.start || interval.start == window.start)
        }
    }

    /// The event `key`, nil when there is none.
    public func event(_ key: EventKey) -> DeviceEvent? {
        storedEvents[key]
    }

    /// Creates the row's event in `calendarId` with a new identifier; throws when there is no such calendar.
    public func createEvent(from row: ServerEvent, inCalendar calendarId: String) throws -> DeviceEvent {
        guard let title = calendars[calendarId] else { throw CalendarStoreError.calendarNotFound(calendarId) }
        guard
            var event = DeviceEvent(
                creating: row, externalId: newIdentifier(), calendarId: calendarId, calendarTitle: title, defaultTimeZone: defaultTimeZone)
        else { throw CalendarStoreError.invalidTimes(rowID: row.id) }
        event.externalUpdatedAt = stamp()
        storedEvents[event.key] = event
        return event
    }

    /// Gives the event `key` the row's title, times, location and url, stamped now.
    public func updateEvent(_ key: EventKey, from row: ServerEvent) throws -> DeviceEvent? {
        guard let event = storedEvents[key] else { return nil }
        guard var updated = event.updated(from: row, defaultTimeZone: defaultTimeZone) else {
            throw CalendarStoreError.invalidTimes(rowID: row.id)
        }
        updated.externalUpdatedAt = stamp()
        storedEvents[key] = updated
        return updated
    }

    /// Deletes the event `key` (every occurrence when it names none).
    public func deleteEvent(_ key: EventKey) -> Bool {
        remove(key)
    }

    // MARK: - Helpers

    private func newIdentifier() -> String {
        defer { nextIdentifier += 1 }
        return "\(prefix)-\(nextIdentifier)"
    }

    /// Now in epoch milliseconds, after every stamp given before.
    private func stamp() -> Int64 {
        lastStamp = max(EpochMilliseconds.from(Date()), lastStamp + 1)
        return lastStamp
    }

    /// Whether `stored` is `key`, or an occurrence of it when `key` names no occurrence.
    private static func matches(_ stored: EventKey, _ key: EventKey) -> Bool {
        stored.externalId == key.externalId && (key.occurrenceDate == nil || stored.occurrenceDate == key.occurrenceDate)
    }
}
