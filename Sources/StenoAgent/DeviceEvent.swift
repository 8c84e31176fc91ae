import Foundation

/// One calendar event as the device sends it to `POST /sync/apple/events/upsert`: the fields
/// of an `EKEvent` a Steno server needs to mirror and link it.
///
/// Times travel as local wall-clock strings: `date` (`YYYY-MM-DD`) is the first day,
/// `startTime` / `endTime` (`HH:mm`) the local times (both nil for an all-day event), and
/// `endDate` the day the event ends when it is not `date`, all local to `timeZone`. Build
/// one from instants with ``init(externalId:externalCalendarId:start:end:isAllDay:timeZone:)``,
/// which fills these correctly across midnight and daylight-saving changes. Nil fields are
/// left out of the JSON.
public struct DeviceEvent: Codable, Sendable, Hashable {
    /// `EKEvent.eventIdentifier`; occurrences of a recurring event share it.
    public var externalId: String
    /// `EKEvent.occurrenceDate` in epoch milliseconds, for one occurrence of a recurring event.
    public var occurrenceDate: Int64?
    /// `EKEvent.calendar.calendarIdentifier`; required unless `deleted`.
    public var externalCalendarId: String?
    /// The calendar's name.
    public var calendarTitle: String?
    /// `EKEvent.lastModifiedDate` in epoch milliseconds; the server ignores an upsert older than the one it holds.
    public var externalUpdatedAt: Int64?
    /// True when the event is gone from the device (without `occurrenceDate`: every occurrence).
    public var deleted: Bool?
    /// The event's title.
    public var title: String?
    /// The first day, `YYYY-MM-DD`, local to `timeZone`.
    public var date: String?
    /// Local start and end times `HH:mm`; both nil for an all-day event.
    public var startTime: String?
    public var endTime: String?
    /// The last day when it is not `date` (timed: the end's day; all-day: the last day, inclusive).
    public var endDate: String?
    /// The IANA zone of `date`, `startTime`, `endTime` and `endDate`; nil: the device's zone.
    public var timeZone: String?
    /// `EKEvent.status`.
    public var status: EventStatus?
    /// `EKEvent.location`.
    public var location: String?
    /// `EKEvent.url`, e.g. the online meeting's link.
    public var url: String?
    /// `EKEvent.organizer`.
    public var organizer: EventParticipant?
    /// `EKEvent.attendees`.
    public var attendees: [EventAttendee]?
    /// For Exchange- or CalDAV-backed calendars the event's iCalendar UID, so that the device's
    /// copy and the same meeting mirrored from Graph or CalDAV are one meeting.
    public var calendarItemExternalIdentifier: String?
    /// The `id` of the feed row without `provider` that this event was created for.
    public var serverId: String?

    /// An event from its wire fields; most apps use the initializer taking instants instead.
    public init(
        externalId: String, occurrenceDate: Int64? = nil, externalCalendarId: String? = nil, calendarTitle: String? = nil,
        externalUpdatedAt: Int64? = nil, deleted: Bool? = nil, title: String? = nil, date: String? = nil, startTime: String? = nil,
        endTime: String? = nil, endDate: String? = nil, timeZone: String? = nil, status: EventStatus? = nil, location: String? = nil,
        url: String? = nil, organizer: EventParticipant? = nil, attendees: [EventAttendee]? = nil,
        calendarItemExternalIdentifier: String? = nil, serverId: String? = nil
    ) {
        self.externalId = externalId
        self.occurrenceDate = occurrenceDate
        self.externalCalendarId = externalCalendarId
        self.calendarTitle = calendarTitle
        self.externalUpdatedAt = externalUpdatedAt
        self.deleted = deleted
        self.title = title
        self.date = date
        self.startTime = startTime
        self.endTime = endTime
        self.endDate = endDate
        self.timeZone = timeZone
        self.status = status
        self.location = location
        self.url = url
        self.organizer = organizer
        self.attendees = attendees
        self.calendarItemExternalIdentifier = calendarItemExternalIdentifier
        self.serverId = serverId
    }

    /// The upsert that tells the server an event (or, with `occurrenceDate`, one occurrence) is
    /// gone from the device.
    public static func deletion(externalId: String, occurrenceDate: Int64? = nil) -> DeviceEvent {
        DeviceEvent(externalId: externalId, occurrenceDate: occurrenceDate, deleted: true)
    }

    /// Whether this is a deletion.
    public var isDeletion: Bool { deleted == true }

    /// Whether the event lasts whole days (no local times).
    public var isAllDay: Bool { startTime == nil && endTime == nil }

    /// The identity of this event or occurrence on the device.
    public var key: EventKey { EventKey(externalId: externalId, occurrenceDate: occurrenceDate) }
}

/// The identity of an event on the device: its `externalId`, plus the occurrence date for one
/// occurrence of a recurring event.
public struct EventKey: Codable, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// `EKEvent.eventIdentifier`.
    public var externalId: String
    /// Epoch milliseconds; nil for a single event.
    public var occurrenceDate: Int64?

    /// The key of an event, or of one occurrence when `occurrenceDate` is given.
    public init(externalId: String, occurrenceDate: Int64? = nil) {
        self.externalId = externalId
        self.occurrenceDate = occurrenceDate
    }

    /// `externalId`, or `externalId@occurrenceDate` for an occurrence.
    public var description: String {
        occurrenceDate.map { "\(externalId)@\($0)" } ?? externalId
    }

    /// By `externalId`, then occurrence (a whole series first).
    public static func < (lhs: EventKey, rhs: EventKey) -> Bool {
        (lhs.externalId, lhs.occurrenceDate ?? Int64.min) < (rhs.externalId, rhs.occurrenceDate ?? Int64.min)
    }
}

/// `EKEvent.status` on the wire. Values the library does not know are kept as they came.
public struct EventStatus: RawRepresentable, Codable, Sendable, Hashable {
    /// The status as the wire spells it.
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `EKEventStatus.confirmed` (and `.none`).
    public static let confirmed = EventStatus(rawValue: "confirmed")
    /// `EKEventStatus.tentative`.
    public static let tentative = EventStatus(rawValue: "tentative")
    /// `EKEventStatus.canceled`.
    public static let canceled = EventStatus(rawValue: "canceled")
}

/// An event's organizer: `{email, name}`.
public struct EventParticipant: Codable, Sendable, Hashable {
    /// The address, without `mailto:`.
    public var email: String?
    /// The display name.
    public var name: String?

    /// A participant from its address and name.
    public init(email: String? = nil, name: String? = nil) {
        self.email = email
        self.name = name
    }
}

/// An attendee: `status` is `accepted`, `declined`, `tentative`, `pending`…; `role` is
/// `required`, `optional`, `chair` or `nonParticipant`; `type` `room` or `resource` makes it a
/// resource (`person` or `group` otherwise).
public struct EventAttendee: Codable, Sendable, Hashable {
    /// The address, without `mailto:`.
    public var email: String?
    /// The display name.
    public var name: String?
    /// The answer: `accepted`, `declined`, `tentative`, `pending`, …
    public var status: String?
    /// `required`, `optional`, `chair` or `nonParticipant`.
    public var role: String?
    /// `person`, `room`, `resource` or `group`.
    public var type: String?

    /// An attendee from its fields.
    public init(email: String? = nil, name: String? = nil, status: String? = nil, role: String? = nil, type: String? = nil) {
        self.email = email
        self.name = name
        self.status = status
        self.role = role
        self.type = type
    }
}
