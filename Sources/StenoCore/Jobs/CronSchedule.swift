import Foundation

/// A classic five-field cron expression: `minute hour day-of-month month day-of-week`.
///
/// Each field takes `*`, a value, a range `a-b`, a step `*/n`, `a-b/n` or `a/n` (from `a` to the
/// field's end), and comma-separated lists of those. Months take `JAN`…`DEC`, days of the week
/// `SUN`…`SAT` (0 and 7 are both Sunday). The macros `@hourly`, `@daily` (`@midnight`),
/// `@weekly`, `@monthly` and `@yearly` (`@annually`) stand for their usual expressions.
///
/// As in Vixie cron, when both day fields are restricted (neither starts with `*`) a day
/// matches if *either* matches: `0 9 1 * MON` fires on the 1st and on every Monday.
///
/// Times are wall-clock times in a time zone; see `nextFireDate(after:in:)` for daylight
/// saving time.
public struct CronSchedule: Sendable, Hashable, CustomStringConvertible {
    /// The expression as written.
    public let expression: String
    /// Allowed minutes (0…59), sorted.
    let minutes: [Int]
    /// Allowed hours (0…23), sorted.
    let hours: [Int]
    /// Allowed days of the month (1…31).
    let daysOfMonth: Set<Int>
    /// Allowed months (1…12).
    let months: Set<Int>
    /// Allowed days of the week (0 = Sunday … 6).
    let daysOfWeek: Set<Int>
    /// Whether the day-of-month field was restricted (did not start with `*`).
    let restrictsDayOfMonth: Bool
    /// Whether the day-of-week field was restricted (did not start with `*`).
    let restrictsDayOfWeek: Bool

    /// Why an expression was rejected.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The expression at fault.
        public var expression: String
        /// What is wrong with it.
        public var reason: String
        /// `invalid cron expression "…": reason`.
        public var description: String { "invalid cron expression \"\(expression)\": \(reason)" }
    }

    /// Parses an expression.
    ///
    /// - Throws: `ParseError` naming the field at fault, e.g. `hour: 24 is out of range 0-23`.
    public init(_ expression: String) throws(ParseError) {
        let trimmed = expression.trimmingCharacters(in: .whitespaces)
        let expanded: String
        switch trimmed.lowercased() {
        case "@yearly", "@annually": expanded = "0 0 1 1 *"
        case "@monthly": expanded = "0 0 1 * *"
        case "@weekly": expanded = "0 0 * * 0"
        case "@daily", "@midnight": expanded = "0 0 * * *"
        case "@hourly": expanded = "0 * * * *"
        default:
            if trimmed.hasPrefix("@") {
                throw ParseError(expression: expression, reason: "unknown macro (known: @hourly, @daily, @weekly, @monthly, @yearly)")
            }
            expanded = trimmed
        }
        let fields = expanded.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard fields.count == 5 else {
            throw ParseError(
                expression: expression,
                reason: "expected 5 fields (minute hour day-of-month month day-of-week), got \(fields.count)")
        }
        do {
            self.minutes = try Self.parse(fields[0], field: .minute).sorted()
            self.hours = try Self.parse(fields[1], field: .hour).sorted()
            self.daysOfMonth = Set(try Self.parse(fields[2], field: .dayOfMonth))
            self.months = Set(try Self.parse(fields[3], field: .month))
            // 7 is Sunday too.
            self.daysOfWeek = Set(try Self.parse(fields[4], field: .dayOfWeek).map { $0 % 7 })
        } catch let reason {
            throw ParseError(expression: expression, reason: reason.message)
        }
        self.expression = expression
        self.restrictsDayOfMonth = !fields[2].hasPrefix("*")
        self.restrictsDayOfWeek = !fields[4].hasPrefix("*")
    }

    /// The expression as written.
    public var description: String { expression }

    /// Whether a calendar day matches the day fields (with the day-of-month/day-of-week OR rule).
    func matchesDay(day: Int, month: Int, weekday: Int) -> Bool {
        guard months.contains(month) else { return false }
        let domMatch = daysOfMonth.contains(day)
        let dowMatch = daysOfWeek.contains(weekday)
        if restrictsDayOfMonth && restrictsDayOfWeek { return domMatch || dowMatch }
        return domMatch && dowMatch
    }

    // MARK: - Parsing

    enum Field {
        case minute, hour, dayOfMonth, month, dayOfWeek

        var name: String {
            switch self {
            case .minute: return "minute"
            case .hour: return "hour"
            case .dayOfMonth: return "day-of-month"
            case .month: return "month"
            case .dayOfWeek: return "day-of-week"
            }
        }

        var range: ClosedRange<Int> {
            switch self {
            case .minute: return 0...59
            case .hour: return 0...23
            case .dayOfMonth: return 1...31
            case .month: return 1...12
            case .dayOfWeek: return 0...7
            }
        }

        var names: [String] {
            switch self {
            case .month: return ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
            case .dayOfWeek: return ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"]
            default: return []
            }
        }

        /// The first value a name stands for (months start at 1, weekdays at 0).
        var nameOffset: Int { self == .month ? 1 : 0 }
    }

    struct FieldError: Error {
        var message: String
    }

    static func parse(_ text: String, field: Field) throws(FieldError) -> [Int] {
        var values = Set<Int>()
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard !item.isEmpty else { throw FieldError(message: "\(field.name): empty list item in \"\(text)\"") }
            let parts = item.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count <= 2 else { throw FieldError(message: "\(field.name): more than one step in \"\(item)\"") }
            var step = 1
            if parts.count == 2 {
                guard let parsed = Int(parts[1]), parsed >= 1 else {
                    throw FieldError(message: "\(field.name): step \"\(parts[1])\" must be a positive number")
                }
                step = parsed
            }
            let span = parts[0]
            let lower: Int, upper: Int
            if span == "*" {
                lower = field.range.lowerBound
                upper = field == .dayOfWeek ? 6 : field.range.upperBound
            } else if let dash = span.firstIndex(of: "-") {
                lower = try value(String(span[..<dash]), field: field)
                upper = try value(String(span[span.index(after: dash)...]), field: field)
                guard lower <= upper else {
                    throw FieldError(message: "\(field.name): range \"\(span)\" runs backwards")
                }
            } else {
                lower = try value(String(span), field: field)
                // `a/n` runs from a to the end of the field; a lone value is just itself.
                upper = parts.count == 2 ? (field == .dayOfWeek ? 6 : field.range.upperBound) : lower
            }
            for candidate in stride(from: lower, through: upper, by: step) { values.insert(candidate) }
        }
        return Array(values)
    }

    static func value(_ text: String, field: Field) throws(FieldError) -> Int {
        if let index = field.names.firstIndex(of: text.uppercased()) { return index + field.nameOffset }
        guard let number = Int(text) else {
            let names = field.names.isEmpty ? "" : " or a name like \(field.names[0])"
            throw FieldError(message: "\(field.name): \"\(text)\" is not a number\(names)")
        }
        guard field.range.contains(number) else {
            throw FieldError(
                message: "\(field.name): \(number) is out of range \(field.range.lowerBound)-\(field.range.upperBound)")
        }
        return number
    }
}
