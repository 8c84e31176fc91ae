import Foundation
import StenoCore
import StenoJSON

/// What an ICS calendar remembers between syncs, to skip work when nothing changed.
struct ICSSyncState: Codable, Hashable {
    /// The day (UTC, `YYYYMMDD`) the window was expanded for: recurring series are expanded
    /// again when the window has slid.
    var windowDay: String
    /// For files: path → "size:mtime-ns" of each file read.
    var files: [String: String]?
    /// For URLs: the validators of the last response.
    var etag: String?
    var lastModified: String?

    static func decode(_ text: String?) -> ICSSyncState? {
        guard let text else { return nil }
        return try? JSONValueDecoder().decode(ICSSyncState.self, from: JSONValue.parse(text))
    }

    /// Sorted keys, so equal states are equal strings.
    var encoded: String {
        (try? JSONValueEncoder().encode(self))?.serializedString ?? "{}"
    }

    /// The UTC day of an instant, `YYYYMMDD`.
    static func day(of date: Date) -> String {
        String(MeetingIdentity.basicUTC(date).prefix(8))
    }
}
