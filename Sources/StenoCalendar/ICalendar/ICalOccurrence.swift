import Foundation

/// One occurrence of an event within a window, with the fields consumers need.
///
/// Identity is ``uid`` + ``recurrenceID`` (the original start in UTC), which is stable when an
/// occurrence is moved by an override.
public struct ICalOccurrence: Sendable, Hashable {
    /// The series' `UID`.
    public var uid: String
    /// The occurrence's original start (UTC instant); `nil` for a non-recurring event.
    public var recurrenceID: Date?
    /// Start instant. For all-day occurrences: local midnight in the default time zone.
    public var start: Date
    /// End instant (exclusive).
    public var end: Date
    /// Whether the occurrence is all-day (DATE valued).
    public var isAllDay: Bool
    /// For all-day occurrences, the first day.
    public var allDayStart: ICalDay?
    /// For all-day occurrences, the day after the last day (exclusive, as `DTEND`).
    public var allDayEnd: ICalDay?
    /// The TZID of the start as written, mapped to IANA when it is a Windows name; `nil` for
    /// floating and all-day times, "UTC" for UTC times.
    public var timeZoneID: String?
    /// `SUMMARY`.
    public var summary: String?
    /// `DESCRIPTION`.
    public var description: String?
    /// `STATUS` (a cancelled override yields a `.cancelled` occurrence; consumers decide).
    public var status: ICalEvent.Status?
    /// `ORGANIZER`.
    public var organizer: ICalAttendee?
    /// `ATTENDEE`s.
    public var attendees: [ICalAttendee]
    /// `LOCATION`.
    public var location: String?
    /// `URL`.
    public var url: URL?
    /// The online-meeting link.
    public var onlineMeetingURL: URL?
    /// `SEQUENCE` of the component the fields come from.
    public var sequence: Int
    /// Whether the fields come from a `RECURRENCE-ID` override.
    public var isOverride: Bool

    /// Creates an occurrence from an event's fields and computed times.
    public init(event: ICalEvent, recurrenceID: Date?, start: Date, end: Date, isOverride: Bool) {
        uid = event.uid
        self.recurrenceID = recurrenceID
        self.start = start
        self.end = end
        isAllDay = event.isAllDay
        summary = event.summary
        description = event.description
        status = event.status
        organizer = event.organizer
        attendees = event.attendees
        location = event.location
        url = event.url
        onlineMeetingURL = event.onlineMeetingURL
        sequence = event.sequence
        self.isOverride = isOverride
    }
}
