import Foundation
import StenoAPI

/// Events as the Steno agent on a phone pushes them, for tests and benchmarks.
public enum PhoneEvents {
    /// Events as a phone sends them: timed in three zones (daylight-saving days among
    /// them), all-day single and multi-day, past midnight, non-ASCII, with attendees.
    public static func sample(count: Int, stamp: Int64 = 1_000, idPrefix: String = "EK-") -> [JSONValue] {
        let zones = ["Europe/Berlin", "America/New_York", "Asia/Tokyo"]
        // The days clocks change in 2026 (Berlin: 29 March, 25 October; New York: 8 March, 1 November).
        let days = ["2026-03-29", "2026-10-25", "2026-03-08", "2026-11-01", "2026-06-15", "2026-12-31", "2027-01-04"]
        let titles = ["Standup", "Réunion d'équipe", "東京 sync", "Ünïcode ✓", "Planning"]
        return (0..<count).map { index in
            var event: [String: JSONValue] = [
                "externalId": .string("\(idPrefix)\(index)"), "externalCalendarId": .string(index % 4 == 0 ? "CAL-HOME" : "CAL-WORK"),
                "calendarTitle": .string(index % 4 == 0 ? "Home" : "Work"), "externalUpdatedAt": .int(stamp + Int64(index)),
                "title": .string("\(titles[index % titles.count]) \(index)"), "date": .string(days[index % days.count]),
                "timeZone": .string(zones[index % zones.count]),
            ]
            switch index % 10 {
            case 0:  // all-day, one day
                break
            case 1:  // all-day over three days
                event["endDate"] = .string(Self.day(after: days[index % days.count], by: 2))
            case 2:  // past midnight
                event["startTime"] = "23:30"
                event["endTime"] = "00:45"
                event["endDate"] = .string(Self.day(after: days[index % days.count], by: 1))
            default:
                // 02:30 does not exist on a spring-forward day: the phone never sends it, so neither do we.
                let hour = 8 + index % 9
                event["startTime"] = .string(String(format: "%02d:%02d", hour, (index * 5) % 60))
                event["endTime"] = .string(String(format: "%02d:%02d", hour + 1, (index * 5) % 60))
            }
            if index % 3 == 0 {
                event["attendees"] = [
                    ["email": "bob@example.com", "name": "Bøb", "status": "accepted", "role": "required"],
                    ["email": .string("guest\(index)@example.org"), "status": "tentative", "role": "optional"],
                ]
                event["organizer"] = ["email": "alice@example.com", "name": "Alice"]
            }
            return .object(event)
        }
    }

    /// The day `days` after `text` (`YYYY-MM-DD`).
    public static func day(after text: String, by days: Int) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let formatter = DateFormatter()
        formatter.calendar = calendar
        formatter.timeZone = calendar.timeZone
        formatter.dateFormat = "yyyy-MM-dd"
        guard let date = formatter.date(from: text), let later = calendar.date(byAdding: .day, value: days, to: date) else { return text }
        return formatter.string(from: later)
    }
}
