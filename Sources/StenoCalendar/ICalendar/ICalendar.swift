import Foundation

/// A parsed iCalendar (RFC 5545) document: its events and time zones.
///
/// ```swift
/// let calendar = try ICalendar.parse(text)
/// let occurrences = calendar.occurrences(in: window, defaultTimeZone: .current)
/// ```
public struct ICalendar: Sendable {
    /// Every `VEVENT` that could be read: masters, single events and overrides.
    public var events: [ICalEvent]
    /// `VTIMEZONE`s by TZID.
    public var timeZones: [String: VTimeZone]
    /// Problems confined to one component (which was skipped) or tolerated structure errors.
    public var warnings: [ICalendarError] = []
    /// Whether the input ended inside a component (a file cut short, or still being written):
    /// a mirror should not take it for the whole calendar.
    public var isTruncated = false
    /// `X-WR-TIMEZONE` (Google, Apple): the zone for UTC and floating times of the calendar.
    public var calendarTimeZoneID: String?
    /// `X-WR-CALNAME`.
    public var name: String?
    /// `METHOD` (e.g. `REQUEST` for invitations), upper-cased.
    public var method: String?
    /// Calendar-level `X-` properties (first value of each, unescaped), e.g. `X-WR-CALDESC`.
    public var extraProperties: [String: String] = [:]

    /// Creates a calendar from parts.
    public init(events: [ICalEvent], timeZones: [String: VTimeZone]) {
        self.events = events
        self.timeZones = timeZones
    }

    /// Parses iCalendar text.
    ///
    /// - Throws: ``ICalendarError`` with a line number when the input is not iCalendar or its
    ///   structure is broken (e.g. `END:VEVENT` without `BEGIN:VEVENT`). Problems inside one
    ///   event drop that event and are listed in ``warnings`` instead.
    public static func parse(_ text: String) throws(ICalendarError) -> ICalendar {
        try ICalendarParser.parse(bytes: Array(text.utf8))
    }

    /// Parses iCalendar bytes (UTF-8). Prefer this for files: unfolding happens before UTF-8
    /// decoding, so a line folded inside a multi-byte character is read correctly.
    public static func parse(data: Data) throws(ICalendarError) -> ICalendar {
        try ICalendarParser.parse(bytes: [UInt8](data))
    }
}

/// A problem in iCalendar input, with the 1-based line where it was found.
///
/// Thrown by ``ICalendar/parse(_:)`` for input that cannot be read at all, and collected in
/// ``ICalendar/warnings`` for problems confined to one component (e.g. an event without
/// `DTSTART`), which is then skipped while the rest of the calendar is kept.
public struct ICalendarError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The physical line (1-based) of the offending content line, or 0 when not tied to a line.
    public var line: Int
    /// What is wrong, phrased so that the reader can fix the input.
    public var message: String

    /// Creates an error.
    public init(line: Int, message: String) {
        self.line = line
        self.message = message
    }

    /// "line N: message".
    public var description: String { "line \(line): \(message)" }
}
