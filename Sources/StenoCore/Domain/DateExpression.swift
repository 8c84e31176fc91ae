import Foundation

/// A time a person names on the command line, resolved to the span it means in a time zone:
/// an instant (`now`, `2026-11-20T09:30`, `-2h`) or a whole day, week, month or year
/// (`2026-11-20`, `today`, `friday`, `last week`, `next month`, `-7d`, `+2w`, `+3m`).
///
/// `--from X` starts at the span's start; `--to X` ends at its end, so `--to friday` includes
/// all of Friday; `--on X` is the whole span. The words mean what they mean to khal, gcalcli
/// and GNU `date -d`: a weekday alone is the next such day, today included (`friday` on a
/// Friday is today), except where the range looks back (``range(from:to:now:timeZone:)``);
/// `next friday` is the first Friday after today, `last friday` the last one before it; weeks
/// start on Monday (ISO 8601).
public struct DateExpression: Sendable, Hashable {
    /// The first instant named.
    public var start: Date
    /// The end of the span (exclusive): the next midnight after a day; `start` for an instant.
    public var end: Date

    /// Whether it names one instant rather than a span of days.
    public var isInstant: Bool { start == end }

    public init(start: Date, end: Date) {
        self.start = start
        self.end = end
    }

    /// The longest text considered: anything longer is no date.
    public static let maximumLength = 64
    /// The largest count of an offset (`+9999d`): beyond it an offset is a typo, not a plan.
    public static let maximumOffset = 9999

    /// What a person can write, for messages and `--help`.
    public static let forms =
        "2026-11-20, 2026-11-20T09:30, now, today, tomorrow, yesterday, friday, next friday, last friday, "
        + "this/next/last week, month or year, -7d, +2w, +3m, -2h"

    /// Which day a weekday alone names: the next one, or the last one; today in either case
    /// when it is that day.
    public enum WeekdayReading: Sendable, Hashable {
        case ahead, behind
    }

    /// Resolves `text` at `now` in `timeZone`; a weekday alone is read `weekdays`.
    public static func parse(
        _ text: String, now: Date, timeZone: TimeZone, weekdays: WeekdayReading = .ahead
    ) throws(DateExpressionError) -> DateExpression {
        guard text.count <= maximumLength else { throw .notADate(String(text.prefix(maximumLength)) + "…") }
        let words = text.lowercased().split(whereSeparator: \.isWhitespace).map(String.init)
        guard !words.isEmpty else { throw .empty }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        calendar.firstWeekday = 2
        calendar.minimumDaysInFirstWeek = 4
        let resolver = Resolver(calendar: calendar, now: now, text: text, weekdays: weekdays)
        if let expression = try resolver.word(words) { return expression }
        if let expression = try resolver.offset(words) { return expression }
        if let expression = try resolver.iso(text.trimmingCharacters(in: .whitespaces)) { return expression }
        throw .notADate(text)
    }

    /// The arithmetic behind the forms, in one calendar at one moment.
    private struct Resolver {
        let calendar: Calendar
        let now: Date
        let text: String
        let weekdays: WeekdayReading

        func word(_ words: [String]) throws(DateExpressionError) -> DateExpression? {
            let today = calendar.startOfDay(for: now)
            if words.count == 1 {
                switch words[0] {
                case "now": return DateExpression(start: now, end: now)
                case "today": return try day(today, plus: 0)
                case "tomorrow": return try day(today, plus: 1)
                case "yesterday": return try day(today, plus: -1)
                default: break
                }
                if let weekday = Self.weekday(words[0]) {
                    switch weekdays {
                    case .ahead: return try day(today, plus: ahead(to: weekday, from: today, strictly: false))
                    case .behind: return try day(today, plus: -(behind(to: weekday, from: today) % 7))
                    }
                }
                return nil
            }
            guard words.count == 2, ["this", "next", "last"].contains(words[0]) else { return nil }
            let step = ["this": 0, "next": 1, "last": -1][words[0]] ?? 0
            if let weekday = Self.weekday(words[1]) {
                switch step {
                case 1: return try day(today, plus: ahead(to: weekday, from: today, strictly: true))
                case -1: return try day(today, plus: -behind(to: weekday, from: today))
                default: return try day(today, plus: ahead(to: weekday, from: today, strictly: false))
                }
            }
            let units: [String: Calendar.Component] = ["day": .day, "week": .weekOfYear, "month": .month, "year": .year]
            guard let unit = units[words[1]] else { return nil }
            return try period(unit, containing: calendar.date(byAdding: unit, value: step, to: now))
        }

        /// `[+-]N` followed by h (hours: an instant), d, w (days, weeks), m (months) or y (years).
        func offset(_ words: [String]) throws(DateExpressionError) -> DateExpression? {
            guard words.count == 1, let sign = words[0].first, sign == "+" || sign == "-", let unit = words[0].last else { return nil }
            let digits = words[0].dropFirst().dropLast()
            guard !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber) else { return nil }
            guard digits.count <= 4, let count = Int(digits), count <= DateExpression.maximumOffset else { throw .outOfRange(text) }
            let value = sign == "-" ? -count : count
            let today = calendar.startOfDay(for: now)
            switch unit {
            case "h":
                guard let instant = calendar.date(byAdding: .hour, value: value, to: now) else { throw .outOfRange(text) }
                return DateExpression(start: instant, end: instant)
            case "d": return try day(today, plus: value)
            case "w": return try day(today, plus: value * 7)
            case "m", "y":
                guard let shifted = calendar.date(byAdding: unit == "m" ? .month : .year, value: value, to: today) else { throw .outOfRange(text) }
                return try day(shifted, plus: 0)
            default: return nil
            }
        }

        /// `YYYY-MM-DD` (a day), with `THH:MM[:SS]` or ` HH:MM[:SS]` (an instant in the zone),
        /// and `Z` or `±HH:MM` (an instant in that offset).
        func iso(_ text: String) throws(DateExpressionError) -> DateExpression? {
            let pattern = #/(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?(Z|z|[+-]\d{2}:?\d{2})?)?/#
            guard let match = text.wholeMatch(of: pattern) else { return nil }
            var parts = DateComponents()
            parts.year = Int(match.1)
            parts.month = Int(match.2)
            parts.day = Int(match.3)
            guard let year = parts.year, let month = parts.month, let dayOfMonth = parts.day, (1...12).contains(month), dayOfMonth >= 1,
                year >= 1
            else { throw .outOfRange(text) }
            var zoned = calendar
            if let hour = match.4, let minute = match.5 {
                parts.hour = Int(hour)
                parts.minute = Int(minute)
                parts.second = match.6.flatMap { Int($0) } ?? 0
                guard let h = parts.hour, let m = parts.minute, let s = parts.second, h < 24, m < 60, s < 60 else { throw .outOfRange(text) }
                if let zone = match.7 {
                    guard let offset = TimeZoneName.zone(String(zone) == "z" ? "Z" : String(zone)) else { throw .outOfRange(text) }
                    zoned.timeZone = offset
                }
            }
            guard let date = zoned.date(from: parts),
                zoned.dateComponents([.year, .month, .day], from: date) == DateComponents(year: year, month: month, day: dayOfMonth)
            else { throw .outOfRange(text) }
            return parts.hour == nil ? try day(date, plus: 0) : DateExpression(start: date, end: date)
        }

        /// The whole day `days` after the one holding `date`.
        func day(_ date: Date, plus days: Int) throws(DateExpressionError) -> DateExpression {
            guard let shifted = calendar.date(byAdding: .day, value: days, to: calendar.startOfDay(for: date)) else { throw .outOfRange(text) }
            return try period(.day, containing: shifted)
        }

        /// The whole day, week, month or year holding `date`.
        func period(_ unit: Calendar.Component, containing date: Date?) throws(DateExpressionError) -> DateExpression {
            guard let date, let interval = calendar.dateInterval(of: unit, for: date) else { throw .outOfRange(text) }
            return DateExpression(start: interval.start, end: interval.end)
        }

        /// Days from `today` to the next `weekday` (1 = Sunday … 7 = Saturday), 0 when today is
        /// one unless `strictly`.
        func ahead(to weekday: Int, from today: Date, strictly: Bool) -> Int {
            let days = (weekday - calendar.component(.weekday, from: today) + 7) % 7
            return days == 0 && strictly ? 7 : days
        }

        /// Days back from `today` to the last `weekday` before it (1…7).
        func behind(to weekday: Int, from today: Date) -> Int {
            let days = (calendar.component(.weekday, from: today) - weekday + 7) % 7
            return days == 0 ? 7 : days
        }

        /// 1 = Sunday … 7 = Saturday, from a weekday's English name or its first three letters.
        static func weekday(_ word: String) -> Int? {
            let names = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]
            return names.firstIndex { $0 == word || (word.count >= 3 && $0.hasPrefix(word)) }.map { $0 + 1 }
        }
    }
}

extension DateExpression {
    /// The spans `--from` and `--to` name together. A weekday alone looks the way the range
    /// does: in `--from` it is the last one (today included) — `--from monday` is since Monday
    /// — unless `--to` ends after today and the next one still comes before it (`--from friday
    /// --to +2w`); in `--to` it is the next one (today included).
    public static func range(
        from: String?, to: String?, now: Date, timeZone: TimeZone
    ) throws(DateExpressionError) -> (from: DateExpression?, to: DateExpression?) {
        let end = try to.map { text throws(DateExpressionError) in try parse(text, now: now, timeZone: timeZone, weekdays: .ahead) }
        guard let from else { return (nil, end) }
        let since = try parse(from, now: now, timeZone: timeZone, weekdays: .behind)
        if let end, end.end > now {
            let next = try parse(from, now: now, timeZone: timeZone, weekdays: .ahead)
            if next.start < end.end { return (next, end) }
        }
        return (since, end)
    }
}

/// Why a text names no time.
public enum DateExpressionError: Error, Sendable, Hashable, CustomStringConvertible {
    case empty
    case notADate(String)
    /// A date that does not exist (`2026-02-30`) or an offset beyond the bounds.
    case outOfRange(String)

    public var description: String {
        switch self {
        case .empty: "an empty date; write one of " + DateExpression.forms
        case .notADate(let text): "\"\(text)\" is not a date; write one of " + DateExpression.forms
        case .outOfRange(let text):
            "\"\(text)\" is no date on the calendar (or an offset beyond \(DateExpression.maximumOffset)); write one of " + DateExpression.forms
        }
    }
}
