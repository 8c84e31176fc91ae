import Foundation

/// One row of a changes feed (`GET /sync/events/changes`, `GET /sync/apple/events/changes`):
/// an event as Steno holds it.
///
/// `provider` is `apple` for a device's event (`device` says whose), `graph`, `caldav` or
/// `ics`; a row without `provider` is an event Steno asks this device to create (see
/// ``isCreationRequest``). Every field but `id` is optional so that a newer server's rows
/// still decode; unknown fields are ignored.
public struct ServerEvent: Codable, Sendable, Hashable {
    /// The row's id, e.g. `e:4711`; sent back as ``DeviceEvent/serverId`` for a created event.
    public var id: String
    /// `apple`, `graph`, `caldav`, `ics`; nil for an event to create on the device.
    public var provider: String?
    /// For `apple` rows: the device the event came from.
    public var device: Int64?
    /// For device events: `EKEvent.eventIdentifier`; other providers' event ids otherwise.
    public var externalId: String?
    /// For occurrences of a recurring device event: `EKEvent.occurrenceDate` in epoch milliseconds.
    public var occurrenceDate: Int64?
    /// The calendar: for a creation request, the device calendar to create the event in.
    public var externalCalendarId: String?
    /// The calendar's name.
    public var calendarTitle: String?
    /// The event's title.
    public var title: String?
    /// Whether it lasts whole days.
    public var allDay: Bool?
    /// Local fields as in ``DeviceEvent``: `YYYY-MM-DD` and `HH:mm` in `timeZone`.
    public var date: String?
    public var startTime: String?
    public var endTime: String?
    public var endDate: String?
    public var timeZone: String?
    /// The instants, ISO 8601 in UTC (`2026-11-25T08:30:00Z`).
    public var start: String?
    public var end: String?
    /// The iCalendar UID of the occurrence, when the source has one.
    public var iCalUID: String?
    /// The Steno meeting the event belongs to.
    public var meeting: Int64?
    /// `confirmed`, `tentative` or `canceled`.
    public var status: EventStatus?
    /// Where it takes place.
    public var location: String?
    /// Its link (the online meeting's, or the event's page).
    public var url: String?
    /// Who organises it.
    public var organizer: EventParticipant?
    /// Who is invited, with their answers.
    public var attendees: [EventAttendee]?
    /// The device's `lastModifiedDate` as last pushed (epoch milliseconds).
    public var externalUpdatedAt: Int64?
    /// When Steno last changed the row (epoch milliseconds).
    public var updatedAt: Int64?
    /// When the event was deleted (epoch milliseconds); 0 or nil while it exists.
    public var deletedAt: Int64?

    /// A row from its fields (tests and previews; rows normally come from the feed).
    public init(
        id: String, provider: String? = nil, device: Int64? = nil, externalId: String? = nil, occurrenceDate: Int64? = nil,
        externalCalendarId: String? = nil, calendarTitle: String? = nil, title: String? = nil, allDay: Bool? = nil,
        date: String? = nil, startTime: String? = nil, endTime: String? = nil, endDate: String? = nil, timeZone: String? = nil,
        start: String? = nil, end: String? = nil, iCalUID: String? = nil, meeting: Int64? = nil, status: EventStatus? = nil,
        location: String? = nil, url: String? = nil, organizer: EventParticipant? = nil, attendees: [EventAttendee]? = nil,
        externalUpdatedAt: Int64? = nil, updatedAt: Int64? = nil, deletedAt: Int64? = nil
    ) {
        self.id = id
        self.provider = provider
        self.device = device
        self.externalId = externalId
        self.occurrenceDate = occurrenceDate
        self.externalCalendarId = externalCalendarId
        self.calendarTitle = calendarTitle
        self.title = title
        self.allDay = allDay
        self.date = date
        self.startTime = startTime
        self.endTime = endTime
        self.endDate = endDate
        self.timeZone = timeZone
        self.start = start
        self.end = end
        self.iCalUID = iCalUID
        self.meeting = meeting
        self.status = status
        self.location = location
        self.url = url
        self.organizer = organizer
        self.attendees = attendees
        self.externalUpdatedAt = externalUpdatedAt
        self.updatedAt = updatedAt
        self.deletedAt = deletedAt
    }

    /// Whether the event is deleted.
    public var isDeleted: Bool { (deletedAt ?? 0) > 0 }

    /// Whether Steno asks this device to create the event (a row without `provider`).
    public var isCreationRequest: Bool { provider == nil }

    /// Whether the row is `device`'s own Apple Calendar event.
    public func isEvent(ofDevice device: Int64) -> Bool {
        provider == "apple" && self.device == device && externalId != nil
    }

    /// The device event this row stands for, when it has an `externalId`.
    public var key: EventKey? { externalId.map { EventKey(externalId: $0, occurrenceDate: occurrenceDate) } }

    /// Whether the event lasts whole days: `allDay`, else no local times.
    public var isAllDay: Bool { allDay ?? (startTime == nil && endTime == nil) }

    /// The zone of the local fields, else `defaultTimeZone`.
    public func zone(defaultTimeZone: TimeZone = .current) -> TimeZone {
        timeZone.flatMap(TimeZone.init(identifier:)) ?? defaultTimeZone
    }

    /// The event's instants: from `start` and `end` when they parse, else from the local fields.
    public func interval(defaultTimeZone: TimeZone = .current) -> DateInterval? {
        if let start = start.flatMap(Self.parseInstant), let end = end.flatMap(Self.parseInstant) {
            return DateInterval(start: start, end: max(start, end))
        }
        return WallClock(timeZone: zone(defaultTimeZone: defaultTimeZone))
            .interval(date: date, startTime: isAllDay ? nil : startTime, endTime: isAllDay ? nil : endTime, endDate: endDate)
    }

    /// An ISO 8601 instant with or without fractional seconds.
    static func parseInstant(_ text: String) -> Date? {
        if let plain = try? Date(text, strategy: .iso8601) { return plain }
        return try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
