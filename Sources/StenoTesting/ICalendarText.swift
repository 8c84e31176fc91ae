import Foundation

/// iCalendar text for tests that put events on a server or into a file.
public enum ICalendarText {
    /// A VCALENDAR around component lines, with CRLF line ends.
    public static func calendar(_ lines: [String]) -> String {
        (["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Steno//Tests//EN"] + lines + ["END:VCALENDAR"]).joined(separator: "\r\n") + "\r\n"
    }

    /// A VEVENT in UTC with an organizer and attendee property values
    /// (e.g. `PARTSTAT=ACCEPTED;CN=Bob:mailto:bob@example.com`).
    public static func event(uid: String, title: String, start: Date, end: Date, organizer: String? = nil, attendees: [String] = []) -> [String] {
        ["BEGIN:VEVENT", "UID:\(uid)", "DTSTAMP:20260101T000000Z", "DTSTART:\(utc(start))", "DTEND:\(utc(end))", "SUMMARY:\(title)"]
            + (organizer.map { ["ORGANIZER:mailto:\($0)"] } ?? []) + attendees.map { "ATTENDEE;\($0)" } + ["END:VEVENT"]
    }

    /// `YYYYMMDDTHHMMSSZ` for an instant.
    public static func utc(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return formatter.string(from: date)
    }

    /// Midnight UTC of yesterday: inside a calendar's default mirrored window whenever a test runs.
    public static var yesterday: Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        return calendar.startOfDay(for: Date()).addingTimeInterval(-86_400)
    }
}
