import Foundation

/// An RFC 5545 DURATION value such as `P1W`, `PT1H30M`, `-PT15M` or `P1DT12H`.
public struct ICalDuration: Sendable, Hashable, CustomStringConvertible {
    /// Whether the duration is negative (`-P…`).
    public var isNegative: Bool
    /// Weeks.
    public var weeks: Int
    /// Days (nominal: wall-clock days across DST).
    public var days: Int
    /// Hours.
    public var hours: Int
    /// Minutes.
    public var minutes: Int
    /// Seconds.
    public var seconds: Int

    /// Creates a duration from its parts.
    public init(isNegative: Bool = false, weeks: Int = 0, days: Int = 0, hours: Int = 0, minutes: Int = 0, seconds: Int = 0) {
        self.isNegative = isNegative
        self.weeks = weeks
        self.days = days
        self.hours = hours
        self.minutes = minutes
        self.seconds = seconds
    }

    /// The signed length in seconds, counting a day as 86,400 s. Steno adds it to wall-clock
    /// time (as Python's `datetime + timedelta` does), so a `P1D` event keeps its time of day.
    public var totalSeconds: Int64 {
        let magnitude = Int64(weeks) * 604_800 + Int64(days) * 86_400 + Int64(hours) * 3600 + Int64(minutes) * 60 + Int64(seconds)
        return isNegative ? -magnitude : magnitude
    }

    /// The canonical text, e.g. `-PT15M`.
    public var description: String {
        var s = isNegative ? "-P" : "P"
        if weeks != 0 { s += "\(weeks)W" }
        if days != 0 { s += "\(days)D" }
        if hours != 0 || minutes != 0 || seconds != 0 {
            s += "T"
            if hours != 0 { s += "\(hours)H" }
            if minutes != 0 { s += "\(minutes)M" }
            if seconds != 0 { s += "\(seconds)S" }
        }
        if s.hasSuffix("P") { s += "T0S" }
        return s
    }

    /// Parses `[+|-]P[nW][nD][T[nH][nM][nS]]` (weeks and days together are accepted, as some
    /// exporters write them).
    public init(parsing text: String) throws(ICalendarError) {
        var chars = Substring(text.trimmingCharacters(in: .whitespaces).uppercased())
        var result = ICalDuration()
        if chars.first == "-" { result.isNegative = true; chars = chars.dropFirst() } else if chars.first == "+" { chars = chars.dropFirst() }
        guard chars.first == "P" else { throw ICalendarError(line: 0, message: "DURATION '\(text)' must start with P, e.g. PT1H30M") }
        chars = chars.dropFirst()
        var inTime = false
        var number: Int?
        var sawComponent = false
        for ch in chars {
            if let digit = ch.wholeNumberValue, ch.isASCII {
                let (next, overflow) = (number ?? 0).multipliedReportingOverflow(by: 10)
                guard !overflow, next <= 100_000_000 else { throw ICalendarError(line: 0, message: "DURATION '\(text)' is too large") }
                number = next + digit
                continue
            }
            if ch == "T" {
                guard !inTime, number == nil else { throw ICalendarError(line: 0, message: "misplaced T in DURATION '\(text)'") }
                inTime = true
                continue
            }
            guard let n = number else { throw ICalendarError(line: 0, message: "missing number before '\(ch)' in DURATION '\(text)'") }
            switch (ch, inTime) {
            case ("W", false): result.weeks = n
            case ("D", false): result.days = n
            case ("H", true): result.hours = n
            case ("M", true): result.minutes = n
            case ("S", true): result.seconds = n
            default: throw ICalendarError(line: 0, message: "unexpected '\(ch)' in DURATION '\(text)'")
            }
            number = nil
            sawComponent = true
        }
        guard !inTime || chars.last != "T" else { throw ICalendarError(line: 0, message: "DURATION '\(text)' has T without hours, minutes or seconds") }
        guard number == nil, sawComponent else { throw ICalendarError(line: 0, message: "DURATION '\(text)' is incomplete, e.g. PT1H30M") }
        self = result
    }
}
