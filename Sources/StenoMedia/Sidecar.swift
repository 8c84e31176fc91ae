import Foundation
import StenoJSON

/// Metadata a person or bot drops next to a recording as `NAME.json`.
///
/// Known keys are matched case-insensitively, ignoring `_` and `-` (`recordedAt`,
/// `recorded_at`). Unknown keys are never rejected: they are kept in ``extra`` (strings
/// as-is, other values as compact JSON text). A known key with a value of the wrong
/// type is left unset and explained in ``problems`` rather than failing the whole file.
public struct Sidecar: Sendable, Hashable {
    /// When the recording started, parsed from `recordedAt`.
    public var recordedAt: Date?
    /// `recordedAt` exactly as written (ISO 8601; a time without an offset is read as UTC).
    public var recordedAtText: String?
    /// Length the sidecar claims, in seconds.
    public var durationSeconds: Double?
    /// Human title of the meeting or recording.
    public var title: String?
    /// Email of the person who owns the recording.
    public var owner: String?
    /// iCalendar UID of the meeting occurrence.
    public var iCalUId: String?
    /// Provider-specific event id (e.g. a Graph event id).
    public var eventId: String?
    /// Which calendar provider `eventId` belongs to ("graph", "caldav", …).
    public var calendarProvider: String?
    /// Inline transcript text.
    public var transcript: String?
    /// Name of a transcript file (`.txt`, `.vtt`, `.srt`) relative to the sidecar.
    public var transcriptFile: String?
    /// Unknown keys and their values (strings as-is, anything else as JSON text).
    public var extra: [String: String]
    /// Values that were present but unusable, one sentence each.
    public var problems: [String]

    /// An empty sidecar.
    public init() {
        extra = [:]
        problems = []
    }

    /// Parses sidecar JSON; throws when it is not valid JSON or not a JSON object.
    public static func parse(_ data: Data) throws(SidecarError) -> Sidecar {
        let object: JSONValue
        do {
            object = try JSONValue.parse(data)
        } catch {
            throw SidecarError(.invalidJSON, "sidecar is not valid JSON: \(error.description)")
        }
        guard let members = object.objectValue else {
            throw SidecarError(.notAnObject, "sidecar must be a JSON object ({…}), found \(typeName(object))")
        }
        var s = Sidecar()
        for key in members.keys.sorted() {
            guard let value = members[key] else { continue }
            let norm = key.lowercased().filter { $0 != "_" && $0 != "-" }
            switch norm {
            case "recordedat":
                if let text = s.string(key, value) {
                    s.recordedAtText = text
                    s.recordedAt = MediaDate.parse(text)
                    if s.recordedAt == nil { s.problems.append("\(key): '\(text)' is not an ISO 8601 date-time") }
                }
            case "durationseconds", "duration":
                if let seconds = value.doubleValue ?? value.stringValue.flatMap(Double.init), seconds.isFinite, seconds >= 0 {
                    s.durationSeconds = seconds
                } else {
                    s.problems.append("\(key): expected a non-negative number of seconds")
                }
            case "title": s.title = s.string(key, value)
            case "owner":
                s.owner = s.string(key, value)
                if let o = s.owner, !o.contains("@") { s.problems.append("\(key): '\(o)' is not an email address") }
            case "icaluid", "uid": s.iCalUId = s.string(key, value)
            case "eventid": s.eventId = s.string(key, value)
            case "calendarprovider", "provider": s.calendarProvider = s.string(key, value)
            case "transcript": s.transcript = s.string(key, value)
            case "transcriptfile": s.transcriptFile = s.string(key, value)
            default: s.extra[key] = value.stringValue ?? value.serializedString
            }
        }
        return s
    }

    /// Reads and parses the sidecar at `path`.
    public static func read(path: String) throws(SidecarError) -> Sidecar {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SidecarError(.io, "cannot read sidecar \(path)")
        }
        return try parse(data)
    }

    private mutating func string(_ key: String, _ value: JSONValue) -> String? {
        if let s = value.stringValue { return s }
        if value.isNull { return nil }
        problems.append("\(key): expected a string, found \(Sidecar.typeName(value))")
        return nil
    }

    private static func typeName(_ value: JSONValue) -> String {
        switch value {
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        case .null: return "null"
        case .int, .double: return "a number"
        case .bool: return "a boolean"
        }
    }
}

/// Why a sidecar could not be used at all.
public struct SidecarError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The class of failure.
    public enum Kind: String, Sendable, Hashable {
        /// The bytes are not JSON.
        case invalidJSON
        /// Valid JSON, but not an object.
        case notAnObject
        /// The file could not be read.
        case io
    }

    /// The class of failure.
    public var kind: Kind
    /// What is wrong, for a person.
    public var message: String

    /// Creates an error.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
