import Foundation
import StenoCalendar

/// Locates and reads the test fixtures next to this file (the target excludes `Fixtures`).
enum Fixtures {
    /// `Tests/StenoCalendarTests/Fixtures`.
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// `Fixtures/recurrence`.
    static let recurrenceDirectory = directory.appendingPathComponent("recurrence")

    /// Names (without `.ics`) of the recurrence fixtures, sorted.
    static let recurrenceNames: [String] = {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: recurrenceDirectory.path)) ?? []
        return files.filter { $0.hasSuffix(".ics") }.map { String($0.dropLast(4)) }.sorted()
    }()

    /// The bytes of a recurrence fixture.
    static func ics(_ name: String) throws -> Data {
        try Data(contentsOf: recurrenceDirectory.appendingPathComponent(name + ".ics"))
    }

    /// The expected occurrences of a recurrence fixture.
    static func expected(_ name: String) throws -> [ExpectedOccurrence] {
        let data = try Data(contentsOf: recurrenceDirectory.appendingPathComponent(name + ".expected.json"))
        return try JSONDecoder().decode([ExpectedOccurrence].self, from: data)
    }
}

/// One occurrence as `generate_expected.py` writes it.
struct ExpectedOccurrence: Codable, Hashable, CustomStringConvertible {
    var uid: String
    var summary: String
    var status: String?
    var allDay: Bool
    var start: String
    var end: String
    var recurrenceID: String?

    var description: String {
        "\(uid) \(start)–\(end) rid=\(recurrenceID ?? "nil") \(allDay ? "all-day " : "")\(status ?? "") '\(summary)'"
    }

    /// The same shape from one of Steno's occurrences.
    init(_ occurrence: ICalOccurrence) {
        uid = occurrence.uid
        summary = occurrence.summary ?? ""
        status = occurrence.status?.rawValue
        allDay = occurrence.isAllDay
        start = Self.iso(occurrence.start)
        end = Self.iso(occurrence.end)
        recurrenceID = occurrence.recurrenceID.map(Self.iso)
    }

    static func iso(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }

    /// Parses `YYYYMMDDTHHMMSSZ`.
    static func parseBasicUTC(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return formatter.date(from: text)
    }
}
