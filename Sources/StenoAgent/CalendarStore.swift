import Foundation

/// The device's calendars as the sync loop sees them: what an app implements over EventKit
/// (`EKEventStore`), and ``InMemoryCalendarStore`` implements for tests.
///
/// Events are ``DeviceEvent`` values: `externalId` is `EKEvent.eventIdentifier`,
/// `occurrenceDate` tells occurrences of a recurring event apart, and `externalUpdatedAt` is
/// `lastModifiedDate`, which must move forward whenever the event changes (EventKit does this).
/// Methods may throw any error; the sync loop reports it and carries on with the next event.
public protocol CalendarStore: Sendable {
    /// The events and occurrences overlapping `window`, from every calendar the app syncs
    /// (`EKEventStore.events(matching:)` with a predicate over the window).
    func events(in window: DateInterval) async throws -> [DeviceEvent]

    /// One event or occurrence, nil when the device no longer has it
    /// (`EKEventStore.event(withIdentifier:)`, then the occurrence on `occurrenceDate`).
    ///
    /// The loop asks for events missing from a scan: one found here was moved out of the
    /// window or its calendar left the app's selection, and is not deleted on the server.
    func event(_ key: EventKey) async throws -> DeviceEvent?

    /// Creates an event in the calendar `calendarId` from a feed row Steno asks the device to
    /// create (title, instants from ``ServerEvent/interval(defaultTimeZone:)``, all-day flag,
    /// zone, location, url) and returns it as stored, with its new `externalId`.
    func createEvent(from row: ServerEvent, inCalendar calendarId: String) async throws -> DeviceEvent

    /// Changes the event `key` to the feed row's title, times, location and url (Steno's copy
    /// differs from the device's) and returns it as stored; nil when the device no longer has it.
    func updateEvent(_ key: EventKey, from row: ServerEvent) async throws -> DeviceEvent?

    /// Deletes the event `key` (without `occurrenceDate`: every occurrence); returns whether
    /// the device had it.
    func deleteEvent(_ key: EventKey) async throws -> Bool
}

/// Why ``InMemoryCalendarStore`` refused a change.
public enum CalendarStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No calendar has this identifier.
    case calendarNotFound(String)
    /// The feed row's times do not parse.
    case invalidTimes(rowID: String)

    /// The error in a sentence.
    public var description: String {
        switch self {
        case .calendarNotFound(let id): return "no calendar \(id) on the device"
        case .invalidTimes(let rowID): return "the times of \(rowID) do not parse"
        }
    }
}

extension DeviceEvent {
    /// Whether the feed row says something different from this event about what the user
    /// sees: title, location, url, all-day or the instants. Server-side fields (`meeting`,
    /// `updatedAt`) and the device's stamps do not count.
    public func differs(from row: ServerEvent, defaultTimeZone: TimeZone = .current) -> Bool {
        func text(_ value: String?) -> String { value ?? "" }
        if text(title) != text(row.title) || text(location) != text(row.location) || text(url) != text(row.url) { return true }
        if isAllDay != row.isAllDay { return true }
        let mine = interval(defaultTimeZone: defaultTimeZone)
        let theirs = row.interval(defaultTimeZone: defaultTimeZone)
        guard let mine, let theirs else { return mine != nil || theirs != nil }
        // Minutes are what the wire carries: seconds on either side are not a change.
        return abs(mine.start.timeIntervalSince(theirs.start)) >= 60 || abs(mine.end.timeIntervalSince(theirs.end)) >= 60
    }

    /// This event with the feed row's title, times, location and url, in the row's zone (the
    /// identity, calendar, organizer and attendees stay). Apps over EventKit set the same
    /// fields on the `EKEvent`.
    public func updated(from row: ServerEvent, defaultTimeZone: TimeZone = .current) -> DeviceEvent? {
        guard let interval = row.interval(defaultTimeZone: defaultTimeZone) else { return nil }
        var event = self
        event.title = row.title
        event.location = row.location
        event.url = row.url
        event.setTimes(start: interval.start, end: interval.end, isAllDay: row.isAllDay, timeZone: row.zone(defaultTimeZone: defaultTimeZone))
        return event
    }

    /// A new event for a feed row Steno asks the device to create, in `calendarId`.
    public init?(
        creating row: ServerEvent, externalId: String, calendarId: String, calendarTitle: String?, defaultTimeZone: TimeZone = .current
    ) {
        guard let interval = row.interval(defaultTimeZone: defaultTimeZone) else { return nil }
        self.init(
            externalId: externalId, externalCalendarId: calendarId, start: interval.start, end: interval.end, isAllDay: row.isAllDay,
            timeZone: row.zone(defaultTimeZone: defaultTimeZone), calendarTitle: calendarTitle, title: row.title, status: row.status,
            location: row.location, url: row.url, organizer: row.organizer, attendees: row.attendees)
    }
}
