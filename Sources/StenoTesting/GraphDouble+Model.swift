import Foundation
import StenoCalendar
import StenoCore

extension GraphDouble {
    /// An event as the double stores it: the fields Steno reads, rendered as Graph does.
    public struct Event: Sendable, Hashable {
        public var id: String
        /// Unique per occurrence.
        public var iCalUId: String
        /// The series' UID (the event's own for a single instance).
        public var uid: String
        /// `singleInstance`, `occurrence` or `exception`.
        public var type: String
        public var seriesMasterId: String?
        public var originalStart: Date?
        public var subject: String
        public var start: Date
        public var end: Date
        public var isAllDay: Bool
        public var isCancelled: Bool
        /// The Windows zone the organizer wrote it in (rendered when UTC is not asked for).
        public var originalStartTimeZone: String
        public var organizer: Person?
        public var attendees: [Invitee]
        public var location: String?
        public var joinURL: String?
        public var webLink: String?
        /// Bumped on every change.
        public var changeKey: String

        public init(
            id: String, iCalUId: String? = nil, uid: String? = nil, type: String = "singleInstance", seriesMasterId: String? = nil,
            originalStart: Date? = nil, subject: String, start: Date, end: Date, isAllDay: Bool = false, isCancelled: Bool = false,
            originalStartTimeZone: String = "W. Europe Standard Time", organizer: Person? = nil, attendees: [Invitee] = [],
            location: String? = nil, joinURL: String? = nil, webLink: String? = nil
        ) {
            self.id = id
            self.iCalUId = iCalUId ?? "ical-\(id)"
            self.uid = uid ?? self.iCalUId
            self.type = type
            self.seriesMasterId = seriesMasterId
            self.originalStart = originalStart
            self.subject = subject
            self.start = start
            self.end = end
            self.isAllDay = isAllDay
            self.isCancelled = isCancelled
            self.originalStartTimeZone = originalStartTimeZone
            self.organizer = organizer
            self.attendees = attendees
            self.location = location
            self.joinURL = joinURL
            self.webLink = webLink
            self.changeKey = "ck-0"
        }

        /// Whether the event overlaps `[start, end)` (how calendarView selects).
        func overlaps(_ window: (start: Date, end: Date)) -> Bool {
            start < window.end && end > window.start
        }
    }

    /// Someone with an address.
    public struct Person: Sendable, Hashable {
        public var email: String
        public var name: String?
        public init(email: String, name: String? = nil) {
            self.email = email
            self.name = name
        }
    }

    /// An attendee: `type` required/optional/resource, `response` as Graph names it.
    public struct Invitee: Sendable, Hashable {
        public var person: Person
        public var type: String
        public var response: String
        public init(_ email: String, name: String? = nil, type: String = "required", response: String = "none") {
            self.person = Person(email: email, name: name)
            self.type = type
            self.response = response
        }
    }
}

extension GraphDouble.Event {
    /// The Graph JSON of this event; times in UTC, or in `originalStartTimeZone` (by its
    /// Windows name, as Graph does) when the request did not ask for UTC.
    func json(utc: Bool) -> [String: Any] {
        func address(_ person: GraphDouble.Person) -> [String: Any] {
            ["emailAddress": ["address": person.email, "name": person.name ?? person.email]]
        }
        let zone = utc ? nil : WindowsTimeZones.ianaIdentifier(forWindowsName: originalStartTimeZone).flatMap(TimeZone.init(identifier:))
        func dateTime(_ date: Date) -> [String: Any] {
            if isAllDay || zone == nil {
                return ["dateTime": GraphDouble.text(date, zone: TimeZone(identifier: "UTC")), "timeZone": "UTC"]
            }
            return ["dateTime": GraphDouble.text(date, zone: zone), "timeZone": originalStartTimeZone]
        }
        var object: [String: Any] = [
            "@odata.etag": "W/\"\(changeKey)\"", "id": id, "iCalUId": iCalUId, "uid": uid, "type": type, "subject": subject,
            "changeKey": changeKey, "isAllDay": isAllDay, "isCancelled": isCancelled, "showAs": "busy",
            "start": dateTime(start), "end": dateTime(end), "originalStartTimeZone": originalStartTimeZone,
            "originalEndTimeZone": originalStartTimeZone,
            "attendees": attendees.map { invitee -> [String: Any] in
                var entry = address(invitee.person)
                entry["type"] = invitee.type
                entry["status"] = ["response": invitee.response, "time": "0001-01-01T00:00:00Z"]
                return entry
            },
            "location": ["displayName": location ?? ""],
        ]
        if let seriesMasterId { object["seriesMasterId"] = seriesMasterId }
        if let originalStart { object["originalStart"] = GraphDouble.text(originalStart, zone: TimeZone(identifier: "UTC"), fraction: false) + "Z" }
        if let organizer { object["organizer"] = address(organizer) }
        if let joinURL { object["onlineMeeting"] = ["joinUrl": joinURL] }
        if let webLink { object["webLink"] = webLink }
        return object
    }
}

extension GraphDouble {
    /// `2026-11-20T17:00:00.0000000` in `zone`.
    static func text(_ date: Date, zone: TimeZone?, fraction: Bool = true) -> String {
        let seconds = Int64(date.timeIntervalSince1970) + Int64(zone?.secondsFromGMT(for: date) ?? 0)
        let local = LocalDateTime(secondsSinceEpoch: seconds)
        return local.description + (fraction ? ".0000000" : "")
    }
}
