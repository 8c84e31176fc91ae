import ArgumentParser
import Foundation

/// A date given on the command line: ISO 8601 (`2026-11-20`, `2026-11-20T09:30`,
/// `2026-11-20T09:30:00Z`) or a word: `now`, `today`, `yesterday`, `tomorrow`, or a weekday
/// (`monday` = the most recent Monday, today included). Dates without a zone are local.
struct DateArgument: ExpressibleByArgument, Sendable {
    var date: Date
    /// As typed, for messages.
    var text: String

    init?(argument: String) {
        guard let date = Self.parse(argument, now: Date(), calendar: .current) else { return nil }
        self.date = date
        self.text = argument
    }

    /// A `--from` later than `--to` can match nothing: a usage error (exit 64), not an empty list.
    static func validateRange(from: DateArgument?, to: DateArgument?) throws {
        guard let from, let to, from.date > to.date else { return }
        throw ValidationError("--from \(from.text) is later than --to \(to.text), so nothing can match; did you swap them?")
    }

    static var defaultCompletionKind: CompletionKind { .list(["today", "yesterday", "monday", "now"]) }

    static func parse(_ text: String, now: Date, calendar: Calendar) -> Date? {
        let word = text.lowercased()
        let today = calendar.startOfDay(for: now)
        switch word {
        case "now": return now
        case "today": return today
        case "yesterday": return calendar.date(byAdding: .day, value: -1, to: today)
        case "tomorrow": return calendar.date(byAdding: .day, value: 1, to: today)
        default: break
        }
        let weekdays = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]
        if let index = weekdays.firstIndex(where: { $0 == word || $0.prefix(3) == word }) {
            let current = calendar.component(.weekday, from: today) - 1
            let back = (current - index + 7) % 7
            return calendar.date(byAdding: .day, value: -back, to: today)
        }
        if let instant = try? Date(text, strategy: .iso8601) { return instant }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.calendar = calendar
        formatter.timeZone = calendar.timeZone
        for format in ["yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd HH:mm", "yyyy-MM-dd"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}
