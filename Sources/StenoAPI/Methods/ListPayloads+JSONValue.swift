import Foundation
import StenoCore

// The list methods' results build their JSON directly: `steno meetings --all` returns tens of
// thousands of rows, and the Codable bridge (a keyed container and a dictionary insert per
// field) cost more than reading them from the catalog. Each must equal its Encodable encoding:
// optionals left out when nil, dates as `JSONValue(date:)`, enums as their raw values (the
// test of JSONValueRepresentable checks every type here, with optionals present and absent).

extension Page: JSONValueRepresentable where Item: JSONValueRepresentable {
    public var jsonValue: JSONValue {
        var object: [String: JSONValue] = ["items": .array(items.map(\.jsonValue))]
        if let nextCursor { object["nextCursor"] = .string(nextCursor) }
        return .object(object)
    }
}

extension Attendee: JSONValueRepresentable {
    public var jsonValue: JSONValue {
        var object: [String: JSONValue] = [:]
        object.reserveCapacity(4)
        object["email"] = .string(email)
        if let name { object["name"] = .string(name) }
        object["role"] = .string(role.rawValue)
        object["response"] = .string(response.rawValue)
        return .object(object)
    }
}

extension MeetingSummary: JSONValueRepresentable {
    public var jsonValue: JSONValue {
        var object: [String: JSONValue] = [:]
        object.reserveCapacity(14)
        object["id"] = .int(id)
        object["title"] = .string(title)
        if let start { object["start"] = JSONValue(date: start) }
        if let end { object["end"] = JSONValue(date: end) }
        if let organizer { object["organizer"] = organizer.jsonValue }
        object["attendeeCount"] = .int(Int64(attendeeCount))
        object["recordings"] = .array(recordings.map(JSONValue.int))
        if let location { object["location"] = .string(location) }
        if let onlineMeetingURL { object["onlineMeetingURL"] = .string(onlineMeetingURL) }
        object["isCancelled"] = .bool(isCancelled)
        object["isGone"] = .bool(isGone)
        object["isAllDay"] = .bool(isAllDay)
        if let firstDay { object["firstDay"] = .string(firstDay) }
        if let lastDay { object["lastDay"] = .string(lastDay) }
        return .object(object)
    }
}

extension LinkSummary: JSONValueRepresentable {
    public var jsonValue: JSONValue {
        var object: [String: JSONValue] = [:]
        object.reserveCapacity(14)
        object["recording"] = .int(recording)
        if let recordingTitle { object["recordingTitle"] = .string(recordingTitle) }
        if let recordedAt { object["recordedAt"] = JSONValue(date: recordedAt) }
        if let owner { object["owner"] = .string(owner) }
        object["state"] = .string(state.rawValue)
        if let method { object["method"] = .string(method.rawValue) }
        object["isManual"] = .bool(isManual)
        if let score { object["score"] = .double(score) }
        if let meeting { object["meeting"] = .int(meeting) }
        if let meetingTitle { object["meetingTitle"] = .string(meetingTitle) }
        if let meetingStart { object["meetingStart"] = JSONValue(date: meetingStart) }
        if let meetingEnd { object["meetingEnd"] = JSONValue(date: meetingEnd) }
        if let candidates { object["candidates"] = .string(candidates) }
        if let validatedAt { object["validatedAt"] = JSONValue(date: validatedAt) }
        return .object(object)
    }
}

extension RecordingPath: JSONValueRepresentable {
    public var jsonValue: JSONValue {
        ["path": .string(path), "isPresent": .bool(isPresent)]
    }
}

extension Recording: JSONValueRepresentable {
    public var jsonValue: JSONValue {
        var object: [String: JSONValue] = [:]
        object.reserveCapacity(24)
        object["id"] = .int(id)
        if let contentHash { object["contentHash"] = .string(contentHash) }
        if let ownerID { object["ownerID"] = .int(ownerID) }
        if let ownerName { object["ownerName"] = .string(ownerName) }
        object["paths"] = .array(paths.map(\.jsonValue))
        object["size"] = .int(size)
        if let format { object["format"] = .string(format) }
        if let codec { object["codec"] = .string(codec) }
        if let duration { object["duration"] = .double(duration) }
        if let sampleRate { object["sampleRate"] = .int(Int64(sampleRate)) }
        if let channels { object["channels"] = .int(Int64(channels)) }
        if let recordedAt { object["recordedAt"] = JSONValue(date: recordedAt) }
        if let recordedAtSource { object["recordedAtSource"] = .string(recordedAtSource.rawValue) }
        if let title { object["title"] = .string(title) }
        if let iCalUIDHint { object["iCalUIDHint"] = .string(iCalUIDHint) }
        if let eventIDHint { object["eventIDHint"] = .string(eventIDHint) }
        if let providerHint { object["providerHint"] = .string(providerHint) }
        if let transcript { object["transcript"] = .string(transcript) }
        object["status"] = .string(status.rawValue)
        if let failureReason { object["failureReason"] = .string(failureReason) }
        object["warnings"] = .array(warnings.map(JSONValue.string))
        object["createdAt"] = JSONValue(date: createdAt)
        object["updatedAt"] = JSONValue(date: updatedAt)
        return .object(object)
    }
}

extension SearchHit: JSONValueRepresentable {
    public var jsonValue: JSONValue {
        var object: [String: JSONValue] = [:]
        object.reserveCapacity(6)
        object["kind"] = .string(kind)
        object["id"] = .int(id)
        object["title"] = .string(title)
        object["snippet"] = .string(snippet)
        if let start { object["start"] = JSONValue(date: start) }
        if let rankedAmongNewest { object["rankedAmongNewest"] = .int(Int64(rankedAmongNewest)) }
        return .object(object)
    }
}
