import Foundation
import StenoCore

/// One `VEVENT`: a single event, a recurring series' master, or an override of one occurrence
/// (when ``recurrenceID`` is set).
public struct ICalEvent: Sendable, Hashable {
    /// `STATUS`.
    public enum Status: String, Sendable, Hashable, CaseIterable {
        case tentative = "TENTATIVE"
        case confirmed = "CONFIRMED"
        case cancelled = "CANCELLED"
    }

    /// An `RDATE` value: a start, optionally a `PERIOD` with an end or a duration.
    public struct RDate: Sendable, Hashable {
        /// The start of the extra occurrence.
        public var start: ICalDateValue
        /// The end, for `VALUE=PERIOD` written as start/end.
        public var end: ICalDateValue?
        /// The duration, for `VALUE=PERIOD` written as start/duration.
        public var duration: ICalDuration?

        /// Creates an RDATE value.
        public init(start: ICalDateValue, end: ICalDateValue? = nil, duration: ICalDuration? = nil) {
            self.start = start
            self.end = end
            self.duration = duration
        }
    }

    /// `UID` (may be empty in broken input; such events are still expanded, alone).
    public var uid: String
    /// `RECURRENCE-ID`: the original start of the occurrence this component overrides.
    public var recurrenceID: ICalDateValue?
    /// `RECURRENCE-ID;RANGE=THISANDFUTURE`.
    public var recurrenceIDThisAndFuture: Bool = false
    /// `SEQUENCE` (0 when absent).
    public var sequence: Int = 0
    /// `SUMMARY`, unescaped.
    public var summary: String?
    /// `DESCRIPTION`, unescaped.
    public var description: String?
    /// `LOCATION`, unescaped.
    public var location: String?
    /// `DTSTART`.
    public var start: ICalDateValue
    /// `DTEND`.
    public var end: ICalDateValue?
    /// `DURATION` (used when `DTEND` is absent).
    public var duration: ICalDuration?
    /// `STATUS`.
    public var status: Status?
    /// `ORGANIZER`.
    public var organizer: ICalAttendee?
    /// `ATTENDEE`s, in file order.
    public var attendees: [ICalAttendee] = []
    /// `URL`.
    public var url: URL?
    /// The online-meeting link; see ``OnlineMeetingLink`` for the precedence of sources.
    public var onlineMeetingURL: URL?
    /// `RRULE`s (normally one).
    public var rrules: [RecurrenceRule] = []
    /// `RDATE`s.
    public var rdates: [RDate] = []
    /// `EXDATE`s.
    public var exdates: [ICalDateValue] = []
    /// `LAST-MODIFIED`.
    public var lastModified: Date?
    /// `DTSTAMP`.
    public var dtstamp: Date?
    /// `CREATED`.
    public var created: Date?
    /// `TRANSP:TRANSPARENT`.
    public var isTransparent: Bool = false
    /// `CATEGORIES`, flattened.
    public var categories: [String] = []
    /// Other `X-` properties (first value of each, unescaped), e.g.
    /// `X-MICROSOFT-CDO-BUSYSTATUS`, `X-MICROSOFT-CDO-INTENDEDSTATUS`, `X-APPLE-TRAVEL-ADVISORY-BEHAVIOR`.
    public var extraProperties: [String: String] = [:]
    /// The line of `BEGIN:VEVENT`, for diagnostics.
    public var line: Int = 0

    /// Creates an event with a UID and start; everything else has its default.
    public init(uid: String, start: ICalDateValue) {
        self.uid = uid
        self.start = start
    }

    /// The first `RRULE`.
    public var rrule: RecurrenceRule? { rrules.first }

    /// Whether `DTSTART` is a DATE.
    public var isAllDay: Bool { start.isDate }

    /// Whether this component makes a series: it has an `RRULE` or `RDATE`.
    public var isRecurring: Bool { !rrules.isEmpty || !rdates.isEmpty }
}
