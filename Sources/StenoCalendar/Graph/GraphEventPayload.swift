import Foundation

/// One page of a Graph collection or delta round (read by ``GraphPageReader``): `value`, and either `@odata.nextLink`
/// (more pages) or `@odata.deltaLink` (the round is complete).
struct GraphPage {
    var value: [GraphEventPayload]
    var nextLink: String?
    var deltaLink: String?
}

/// A Graph `event` as calendarView and calendarView/delta return it (only the fields Steno
/// mirrors), or a removal: `{"id": "…", "@removed": {"reason": "deleted"}}`.
struct GraphEventPayload {
    var id: String
    var removed: Removed?
    var changeKey: String?
    /// Unique per occurrence (for an occurrence of a series, differs from the series').
    var iCalUId: String?
    /// The series' iCalendar UID, shared by its occurrences.
    var uid: String?
    var seriesMasterId: String?
    /// `singleInstance`, `occurrence`, `exception` or `seriesMaster`.
    var type: String?
    var subject: String?
    var isAllDay: Bool?
    var isCancelled: Bool?
    var showAs: String?
    var start: DateTimeTimeZone?
    var end: DateTimeTimeZone?
    /// The occurrence's original start (an exception keeps it after being moved).
    var originalStart: String?
    /// The Windows (or IANA) zone the organizer wrote the event in.
    var originalStartTimeZone: String?
    var organizer: Recipient?
    var attendees: [AttendeePayload]?
    var location: Location?
    var onlineMeeting: OnlineMeeting?
    var onlineMeetingUrl: String?
    var webLink: String?

    struct Removed {
        var reason: String?
    }

    /// `{"dateTime": "2026-11-20T17:00:00.0000000", "timeZone": "UTC"}`.
    struct DateTimeTimeZone {
        var dateTime: String
        var timeZone: String?
    }

    struct EmailAddress {
        var name: String?
        var address: String?
    }

    struct Recipient {
        var emailAddress: EmailAddress?
    }

    struct AttendeePayload {
        /// `required`, `optional` or `resource`.
        var type: String?
        var status: ResponseStatus?
        var emailAddress: EmailAddress?
    }

    /// `none`, `organizer`, `tentativelyAccepted`, `accepted`, `declined`, `notResponded`.
    struct ResponseStatus {
        var response: String?
    }

    struct Location {
        var displayName: String?
    }

    struct OnlineMeeting {
        var joinUrl: String?
    }
}
