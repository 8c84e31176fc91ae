import Foundation
import StenoCore

// The list methods' results write their JSON straight into bytes: `steno meetings --all`
// returns tens of thousands of rows, and building a `JSONValue` tree per row (a dictionary
// insert per field) and sorting each object's keys to serialize it cost as much as reading the
// rows from the catalog. Each type writes its members in sorted key order (byte order for
// these ASCII keys: `iCalUIDHint` before `id`), optionals left out when nil, dates as
// `JSONValue(date:)`, enums as their raw values, so the bytes are those of the serialized tree
// of its Encodable encoding (ListPayloadsJSONTests checks every type here, optionals present
// and absent).

extension Page: JSONObjectWritable where Item: JSONObjectWritable {
    public func writeMembers(to object: inout JSONObjectWriter) {
        object.memberArray("items") { array in
            // By index: each item is lent to the writer, where `for item in items` copied it
            // (a retain and release of every string of every row).
            for index in items.indices { array.append(object: items[index]) }
        }
        object.member("nextCursor", nextCursor)
    }

    /// The first item's guess for each, so a page of a thousand rows reserves its buffer once
    /// (asking every item copied each one).
    public var estimatedJSONSize: Int {
        64 + items.count * (items.first?.estimatedJSONSize ?? 0)
    }
}

extension Attendee: JSONObjectWritable {
    public func writeMembers(to object: inout JSONObjectWriter) {
        object.member("email", email)
        object.member("name", name)
        object.member("response", response.rawValue)
        object.member("role", role.rawValue)
    }

    public var estimatedJSONSize: Int { 96 }
}

extension MeetingSummary: JSONObjectWritable {
    public func writeMembers(to object: inout JSONObjectWriter) {
        object.member("attendeeCount", attendeeCount)
        object.member("end", end)
        object.member("firstDay", firstDay)
        object.member("id", id)
        object.member("isAllDay", isAllDay)
        object.member("isCancelled", isCancelled)
        object.member("isGone", isGone)
        object.member("lastDay", lastDay)
        object.member("location", location)
        object.member("onlineMeetingURL", onlineMeetingURL)
        object.member("organizer", object: organizer)
        object.memberArray("recordings") { array in
            for recording in recordings { array.append(recording) }
        }
        object.member("start", start)
        object.member("title", title)
    }

    public var estimatedJSONSize: Int { 320 }
}

extension LinkSummary: JSONObjectWritable {
    public func writeMembers(to object: inout JSONObjectWriter) {
        object.member("candidates", candidates)
        object.member("isManual", isManual)
        object.member("meeting", meeting)
        object.member("meetingEnd", meetingEnd)
        object.member("meetingStart", meetingStart)
        object.member("meetingTitle", meetingTitle)
        object.member("method", method?.rawValue)
        object.member("owner", owner)
        object.member("recordedAt", recordedAt)
        object.member("recording", recording)
        object.member("recordingTitle", recordingTitle)
        object.member("score", score)
        object.member("state", state.rawValue)
        object.member("validatedAt", validatedAt)
    }

    public var estimatedJSONSize: Int { 320 }
}

extension RecordingPath: JSONObjectWritable {
    public func writeMembers(to object: inout JSONObjectWriter) {
        object.member("isPresent", isPresent)
        object.member("path", path)
    }

    public var estimatedJSONSize: Int { 96 }
}

extension Recording: JSONObjectWritable {
    public func writeMembers(to object: inout JSONObjectWriter) {
        object.member("channels", channels)
        object.member("codec", codec)
        object.member("contentHash", contentHash)
        object.member("createdAt", createdAt)
        object.member("duration", duration)
        object.member("eventIDHint", eventIDHint)
        object.member("failureReason", failureReason)
        object.member("format", format)
        object.member("iCalUIDHint", iCalUIDHint)
        object.member("id", id)
        object.member("meeting", object: meeting)
        object.member("ownerID", ownerID)
        object.member("ownerName", ownerName)
        object.memberArray("paths") { array in
            for path in paths { array.append(object: path) }
        }
        object.member("providerHint", providerHint)
        object.member("recordedAt", recordedAt)
        object.member("recordedAtSource", recordedAtSource?.rawValue)
        object.member("sampleRate", sampleRate)
        object.member("size", size)
        object.member("status", status.rawValue)
        object.member("title", title)
        object.member("transcript", transcript)
        object.member("updatedAt", updatedAt)
        object.memberArray("warnings") { array in
            for warning in warnings { array.append(warning) }
        }
    }

    public var estimatedJSONSize: Int { 480 }
}

extension RecordingMeeting: JSONObjectWritable {
    public func writeMembers(to object: inout JSONObjectWriter) {
        object.member("end", end)
        object.member("id", id)
        object.member("start", start)
        object.member("state", state.rawValue)
        object.member("title", title)
    }

    public var estimatedJSONSize: Int { 128 }
}

extension SearchHit: JSONObjectWritable {
    public func writeMembers(to object: inout JSONObjectWriter) {
        object.member("id", id)
        object.member("kind", kind)
        object.member("rankedAmongNewest", rankedAmongNewest)
        object.member("snippet", snippet)
        object.member("start", start)
        object.member("title", title)
    }

    public var estimatedJSONSize: Int { 192 }
}
