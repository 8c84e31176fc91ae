import Foundation

/// One occurrence of a calendar event as a provider reports it: the row of the local mirror.
///
/// A recurring series arrives expanded: each occurrence within the mirrored window is a value
/// of its own, identified by the series UID and its original start (`recurrenceID`).
public struct EventOccurrence: Sendable, Hashable {
    /// Unique within the calendar: the Graph id, or the CalDAV/ICS resource plus the
    /// RECURRENCE-ID of the occurrence.
    public var remoteID: String
    /// The iCalendar UID of this occurrence as the provider names it (Graph: per occurrence).
    public var iCalUID: String?
    /// The series' UID (iCalendar UID; Graph `uid`).
    public var seriesUID: String?
    /// The occurrence's original start; nil for a single event.
    public var recurrenceID: Date?
    /// The identity shared by every copy of this meeting in anyone's calendar.
    public var meetingIdentity: String
    public var title: String
    public var start: Date
    public var end: Date
    /// The IANA zone the event was written in, when known.
    public var timeZone: String?
    public var isAllDay: Bool
    /// For all-day events: first day and the day after the last (ISO `YYYY-MM-DD`).
    public var allDayStart: String?
    public var allDayEnd: String?
    public var status: EventStatus
    public var organizer: Attendee?
    public var attendees: [Attendee]
    public var location: String?
    public var onlineMeetingURL: String?
    public var webLink: String?

    public init(
        remoteID: String, iCalUID: String? = nil, seriesUID: String? = nil, recurrenceID: Date? = nil,
        meetingIdentity: String, title: String, start: Date, end: Date, timeZone: String? = nil, isAllDay: Bool = false,
        allDayStart: String? = nil, allDayEnd: String? = nil, status: EventStatus = .confirmed, organizer: Attendee? = nil,
        attendees: [Attendee] = [], location: String? = nil, onlineMeetingURL: String? = nil, webLink: String? = nil
    ) {
        self.remoteID = remoteID
        self.iCalUID = iCalUID
        self.seriesUID = seriesUID
        self.recurrenceID = recurrenceID
        self.meetingIdentity = meetingIdentity
        self.title = title
        self.start = start
        self.end = end
        self.timeZone = timeZone
        self.isAllDay = isAllDay
        self.allDayStart = allDayStart
        self.allDayEnd = allDayEnd
        self.status = status
        self.organizer = organizer
        self.attendees = attendees
        self.location = location
        self.onlineMeetingURL = onlineMeetingURL
        self.webLink = webLink
    }
}

/// Whether an event takes place.
public enum EventStatus: String, Sendable, Hashable, Codable, CaseIterable {
    case confirmed, tentative, cancelled
}

/// The identity of a real-world meeting across calendars.
public enum MeetingIdentity {
    /// The identity of an iCalendar occurrence: its UID, plus the original start in UTC for
    /// an occurrence of a recurring series (`UID` alone for a single event), so the same
    /// occurrence in two people's calendars is one meeting.
    public static func iCalendar(uid: String, recurrenceID: Date?) -> String {
        guard let recurrenceID else { return uid }
        return "\(uid)#\(basicUTC(recurrenceID))"
    }

    /// `YYYYMMDDTHHMMSSZ`, the iCalendar UTC form of an instant (a RECURRENCE-ID key),
    /// computed without a formatter.
    public static func basicUTC(_ date: Date) -> String {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        var days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        // Civil-from-days (H. Hinnant).
        days += 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return pad(year, 4) + pad(month, 2) + pad(day, 2) + "T" + pad(secondOfDay / 3600, 2)
            + pad(secondOfDay / 60 % 60, 2) + pad(secondOfDay % 60, 2) + "Z"
    }
}
