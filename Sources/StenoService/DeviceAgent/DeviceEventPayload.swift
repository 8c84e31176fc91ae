import Foundation
import StenoJSON
import StenoCore

/// Reads one event object of `POST /sync/apple/events/upsert` into a `DeviceEventWrite`.
///
/// Times arrive as the device shows them: a day (`date`, `YYYY-MM-DD`), local times
/// (`startTime`/`endTime`, `HH:mm`, both absent for an all-day event), and the zone they are
/// local to (`timeZone`, else the device's). A field that cannot be read fails this event
/// only, naming the field; unknown fields are ignored.
public struct DeviceEventPayload: Sendable {
    /// The device's account: events without an iCalendar UID get meetings of their own in it.
    public let accountID: Int64
    /// The zone of events sent without one.
    public let deviceTimeZone: TimeZone

    public init(accountID: Int64, deviceTimeZone: TimeZone) {
        self.accountID = accountID
        self.deviceTimeZone = deviceTimeZone
    }

    /// Why one event was refused.
    public struct FieldError: Error, Hashable {
        public var field: String
        public var message: String
    }

    /// The event's `externalId` when it has a readable one (results name events by it).
    public static func externalID(of value: JSONValue) -> String? {
        value["externalId"]?.stringValue
    }

    public func write(from value: JSONValue) throws(FieldError) -> DeviceEventWrite {
        guard case .object = value else { throw FieldError(field: "", message: "an event is a JSON object") }
        let externalID = try requiredString("externalId", in: value, maxBytes: 1024)
        let occurrenceDate = try milliseconds("occurrenceDate", in: value).map(EpochMilliseconds.date)
        let updatedAt = try milliseconds("externalUpdatedAt", in: value)
        let remoteID = DeviceEventKeys.remoteID(externalID: externalID, occurrenceDate: occurrenceDate)
        if let deleted = value["deleted"], deleted != .null {
            guard let flag = deleted.boolValue else { throw FieldError(field: "deleted", message: "deleted is true or absent") }
            if flag {
                return DeviceEventWrite(remoteID: remoteID, externalUpdatedAt: updatedAt, change: .delete(allOccurrences: occurrenceDate == nil))
            }
        }
        let calendarID = try requiredString("externalCalendarId", in: value, maxBytes: 1024)
        let zone = try timeZone(in: value)
        let span = try DeviceEventTimes.read(
            date: try optionalString("date", in: value), startTime: try optionalString("startTime", in: value),
            endTime: try optionalString("endTime", in: value), endDate: try optionalString("endDate", in: value), zone: zone)
        let iCalUID = try optionalString("calendarItemExternalIdentifier", in: value).flatMap { $0.isEmpty ? nil : $0 }
        let organizer = try attendee(value["organizer"], field: "organizer", role: .organizer)
        var attendees: [Attendee] = []
        if let list = value["attendees"], list != .null {
            guard let items = list.arrayValue else { throw FieldError(field: "attendees", message: "attendees is a list of objects") }
            for (index, item) in items.enumerated() {
                if let attendee = try attendee(item, field: "attendees[\(index)]", role: .required) { attendees.append(attendee) }
            }
        }
        let unbounded = EventOccurrence(
            remoteID: remoteID, iCalUID: iCalUID, seriesUID: iCalUID, recurrenceID: occurrenceDate,
            meetingIdentity: DeviceEventKeys.meetingIdentity(
                accountID: accountID, remoteID: remoteID, iCalUID: iCalUID, occurrenceDate: occurrenceDate),
            title: try optionalString("title", in: value) ?? "", start: span.start, end: span.end, timeZone: zone.identifier,
            isAllDay: span.allDayStart != nil, allDayStart: span.allDayStart, allDayEnd: span.allDayEnd, status: try status(in: value),
            organizer: organizer, attendees: attendees, location: try optionalString("location", in: value),
            webLink: try optionalString("url", in: value))
        // Held to the bounds every provider's events are: a phone cannot store more.
        let occurrence = unbounded.bounded().occurrence
        let calendar = CalendarDescriptor(remoteID: calendarID, name: try optionalString("calendarTitle", in: value) ?? "")
        return DeviceEventWrite(
            remoteID: remoteID, externalUpdatedAt: updatedAt,
            change: .upsert(calendar: calendar, occurrence: occurrence, request: try requestID(in: value)))
    }

    private func requiredString(_ field: String, in value: JSONValue, maxBytes: Int) throws(FieldError) -> String {
        guard let text = try optionalString(field, in: value), !text.isEmpty else {
            throw FieldError(field: field, message: "\(field) is required")
        }
        guard text.utf8.count <= maxBytes else { throw FieldError(field: field, message: "\(field) is longer than \(maxBytes) bytes") }
        return text
    }

    private func optionalString(_ field: String, in value: JSONValue) throws(FieldError) -> String? {
        guard let item = value[field], item != .null else { return nil }
        guard let text = item.stringValue else { throw FieldError(field: field, message: "\(field) must be a string") }
        return text
    }

    private func milliseconds(_ field: String, in value: JSONValue) throws(FieldError) -> Int64? {
        guard let item = value[field], item != .null else { return nil }
        // Year 1 to 9999: anything else is not a date a calendar holds.
        guard let number = item.intValue, (-62_135_596_800_000...253_402_300_799_999).contains(number) else {
            throw FieldError(field: field, message: "\(field) must be milliseconds since 1970 (an integer)")
        }
        return number
    }

    private func timeZone(in value: JSONValue) throws(FieldError) -> TimeZone {
        guard let name = try optionalString("timeZone", in: value), !name.isEmpty else { return deviceTimeZone }
        guard let zone = TimeZone(identifier: name) else {
            throw FieldError(field: "timeZone", message: "\"\(name)\" is not an IANA time zone (e.g. Europe/Berlin)")
        }
        return zone
    }

    private func status(in value: JSONValue) throws(FieldError) -> EventStatus {
        switch try optionalString("status", in: value)?.lowercased() {
        case nil, "", "none", "confirmed": return .confirmed
        case "tentative": return .tentative
        case "canceled", "cancelled": return .cancelled
        case let other?: throw FieldError(field: "status", message: "status \"\(other)\" is not confirmed, tentative or canceled")
        }
    }

    private func requestID(in value: JSONValue) throws(FieldError) -> Int64? {
        guard let text = try optionalString("serverId", in: value) else { return nil }
        guard text.hasPrefix(DeviceFeedEncoding.eventIDPrefix), let id = Int64(text.dropFirst(DeviceFeedEncoding.eventIDPrefix.count)) else {
            throw FieldError(field: "serverId", message: "serverId \"\(text)\" is not the id of a feed row (e:NUMBER)")
        }
        return id
    }

    private func attendee(_ value: JSONValue?, field: String, role: AttendeeRole) throws(FieldError) -> Attendee? {
        guard let value, value != .null else { return nil }
        guard case .object = value else { throw FieldError(field: field, message: "\(field) is an object with an email") }
        guard let email = value["email"]?.stringValue, !email.isEmpty else { return nil }
        guard email.utf8.count <= 320 else { throw FieldError(field: field + ".email", message: "the email is longer than 320 bytes") }
        let name = value["name"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        if role == .organizer { return Attendee(email: email, name: name, role: .organizer, response: .accepted) }
        // EventKit's participant type, role and status, by their names.
        let type = value["type"]?.stringValue?.lowercased()
        let kind: AttendeeRole =
            switch (type, value["role"]?.stringValue?.lowercased()) {
            case ("room", _), ("resource", _): .resource
            case (_, "optional"), (_, "nonparticipant"): .optional
            default: .required
            }
        let response: AttendeeResponse =
            switch value["status"]?.stringValue?.lowercased() {
            case "accepted": .accepted
            case "declined": .declined
            case "tentative": .tentative
            default: .none
            }
        return Attendee(email: email, name: name, role: kind, response: response)
    }
}

/// Milliseconds since 1970 as dates (the wire's and the schema's unit).
enum EpochMilliseconds {
    static func date(_ milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
}
