import Foundation
import StenoCore

// Pages of meetings read straight from JSON (see `JSONValueDecodable`): `steno meetings --all
// -o csv` and its tables decode every row, and the Codable bridge was most of its own time.
// Each must equal its Decodable decoding (ListPayloadsJSONTests checks, optionals present and
// absent); a member of another kind gives nil, and the client decodes with the bridge instead.

extension Page: JSONValueDecodable where Item: JSONValueDecodable {
    public init?(jsonValue json: JSONValue) {
        guard let values = json["items"]?.arrayValue, let nextCursor = json.optional("nextCursor", \.stringValue) else { return nil }
        var items: [Item] = []
        items.reserveCapacity(values.count)
        for value in values {
            guard let item = Item(jsonValue: value) else { return nil }
            items.append(item)
        }
        self.init(items: items, nextCursor: nextCursor)
    }
}

extension Attendee: JSONValueDecodable {
    public init?(jsonValue json: JSONValue) {
        guard let email = json["email"]?.stringValue, let name = json.optional("name", \.stringValue),
            let role = json["role"]?.stringValue.flatMap(AttendeeRole.init(rawValue:)),
            let response = json["response"]?.stringValue.flatMap(AttendeeResponse.init(rawValue:))
        else { return nil }
        self.init(email: email, name: name, role: role, response: response)
    }
}

extension MeetingSummary: JSONValueDecodable {
    public init?(jsonValue json: JSONValue) {
        guard case .object = json, let id = json["id"]?.intValue, let title = json["title"]?.stringValue,
            let start = json.optional("start", \.dateValue), let end = json.optional("end", \.dateValue),
            let organizer = json.optional("organizer", Attendee.init(jsonValue:)),
            let attendeeCount = json["attendeeCount"]?.intValue.flatMap({ Int(exactly: $0) }),
            let recordingValues = json["recordings"]?.arrayValue, let location = json.optional("location", \.stringValue),
            let onlineMeetingURL = json.optional("onlineMeetingURL", \.stringValue), let isCancelled = json["isCancelled"]?.boolValue,
            let isGone = json["isGone"]?.boolValue, let isAllDay = json["isAllDay"]?.boolValue,
            let firstDay = json.optional("firstDay", \.stringValue), let lastDay = json.optional("lastDay", \.stringValue)
        else { return nil }
        let recordings = recordingValues.compactMap(\.intValue)
        guard recordings.count == recordingValues.count else { return nil }
        self.init(
            id: id, title: title, start: start, end: end, organizer: organizer, attendeeCount: attendeeCount, recordings: recordings,
            location: location, onlineMeetingURL: onlineMeetingURL, isCancelled: isCancelled, isGone: isGone, isAllDay: isAllDay,
            firstDay: firstDay, lastDay: lastDay)
    }
}
