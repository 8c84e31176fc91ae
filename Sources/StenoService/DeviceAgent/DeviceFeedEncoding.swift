import Foundation
import StenoCatalog
import StenoCore
import StenoJSON

/// Change feed rows as the device protocol writes them.
///
/// A device's own events say `provider: "apple"` (the agent's name for them) and which
/// device holds them; a row Steno wants created on the device has no provider and no
/// `externalId`. Days and times are local to the event's zone, or the device's when the
/// source gave none; `start` and `end` are the same instants in UTC.
enum DeviceFeedEncoding {
    /// Feed rows are named `e:` and the events row id; `serverId` in an upsert names one.
    static let eventIDPrefix = "e:"

    static func page(_ page: EventChangesPage, deviceTimeZone: TimeZone) -> JSONValue {
        [
            "events": .array(page.events.map { event($0, deviceTimeZone: deviceTimeZone) }),
            "serverTime": .int(page.serverTime), "hasMore": .bool(page.hasMore),
        ]
    }

    static func event(_ change: EventChange, deviceTimeZone: TimeZone) -> JSONValue {
        let occurrence = change.occurrence
        let zone = occurrence.timeZone.flatMap(TimeZone.init(identifier:)) ?? deviceTimeZone
        let local = DeviceEventTimes.local(
            start: occurrence.start, end: occurrence.end, isAllDay: occurrence.isAllDay, allDayStart: occurrence.allDayStart,
            allDayEnd: occurrence.allDayEnd, zone: zone)
        var object: [String: JSONValue] = [
            "id": .string(eventIDPrefix + String(change.id)),
            "externalCalendarId": .string(change.calendarRemoteID), "calendarTitle": .string(change.calendarName),
            "title": .string(occurrence.title), "allDay": .bool(occurrence.isAllDay), "date": .string(local.date),
            "timeZone": .string(zone.identifier),
            "start": ISO8601Timestamp.string(from: occurrence.start).map(JSONValue.string) ?? .null,
            "end": ISO8601Timestamp.string(from: occurrence.end).map(JSONValue.string) ?? .null,
            "status": .string(occurrence.status == .cancelled ? "canceled" : occurrence.status.rawValue),
            "updatedAt": .int(EpochMilliseconds.milliseconds(change.updatedAt)),
            "deletedAt": .int(change.deletedAt.map(EpochMilliseconds.milliseconds) ?? 0),
            "attendees": .array(occurrence.attendees.filter { $0.role != .organizer }.map(attendee)),
        ]
        if !change.isRequest {
            object["provider"] = .string(change.provider == .device ? "apple" : change.provider.rawValue)
            object["externalId"] = .string(externalID(of: occurrence.remoteID, provider: change.provider))
        }
        if let device = change.deviceID { object["device"] = .int(device) }
        if change.provider == .device, let stamp = change.etag.flatMap({ Int64($0) }) { object["externalUpdatedAt"] = .int(stamp) }
        if change.provider == .device, let occurrenceDate = occurrence.recurrenceID {
            object["occurrenceDate"] = .int(EpochMilliseconds.milliseconds(occurrenceDate))
        }
        if let startTime = local.startTime { object["startTime"] = .string(startTime) }
        if let endTime = local.endTime { object["endTime"] = .string(endTime) }
        if let endDate = local.endDate { object["endDate"] = .string(endDate) }
        if let uid = occurrence.iCalUID { object["iCalUID"] = .string(uid) }
        if let meeting = change.meetingID { object["meeting"] = .int(meeting) }
        if let location = occurrence.location { object["location"] = .string(location) }
        if let url = occurrence.webLink ?? occurrence.onlineMeetingURL { object["url"] = .string(url) }
        if let organizer = occurrence.organizer {
            object["organizer"] = ["email": .string(organizer.email), "name": organizer.name.map(JSONValue.string) ?? .null]
        }
        return .object(object)
    }

    /// A device event's identifier without the occurrence suffix the mirror adds.
    static func externalID(of remoteID: String, provider: CalendarProviderKind) -> String {
        guard provider == .device, let hash = remoteID.lastIndex(of: "#") else { return remoteID }
        return String(remoteID[..<hash])
    }

    static func attendee(_ attendee: Attendee) -> JSONValue {
        [
            "email": .string(attendee.email), "name": attendee.name.map(JSONValue.string) ?? .null,
            "role": .string(attendee.role.rawValue), "status": .string(attendee.response == .none ? "pending" : attendee.response.rawValue),
        ]
    }
}
