import Foundation
import StenoCore

/// A wall-clock date and time with no time zone attached ("2025-03-30 09:30:00").
///
/// Recurrence rules are evaluated on wall-clock values so that a 09:30 meeting stays at 09:30
/// local time across DST changes; a ``TimeZoneRules`` value turns the result into instants.
/// Calendar arithmetic uses the proleptic Gregorian calendar with closed-form day numbers,
/// which keeps expansion fast and independent of `Calendar` locale settings.
public struct LocalDateTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The year, e.g. 2025.
    public var year: Int
    /// The month, 1...12.
    public var month: Int
    /// The day of month, 1...31.
    public var day: Int
    /// The hour, 0...23.
    public var hour: Int
    /// The minute, 0...59.
    public var minute: Int
    /// The second, 0...60 (60 is clamped to 59 when converting, as leap seconds are not modelled).
    public var second: Int

    /// Creates a wall-clock value; callers are responsible for passing valid components.
    public init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// Creates the wall-clock value of a count of seconds since 1970-01-01T00:00:00 (local epoch).
    public init(secondsSinceEpoch seconds: Int64) {
        let days = Int(seconds.floorDiv(86_400))
        let rest = Int(seconds - Int64(days) * 86_400)
        let (y, m, d) = LocalDateTime.civil(fromDays: days)
        self.init(year: y, month: m, day: d, hour: rest / 3600, minute: (rest % 3600) / 60, second: rest % 60)
    }

    /// Seconds since 1970-01-01T00:00:00 of the same wall clock (as if it were UTC).
    public var secondsSinceEpoch: Int64 {
        Int64(dayNumber) * 86_400 + Int64(hour * 3600 + minute * 60 + min(second, 59))
    }

    /// Days since 1970-01-01 of this value's date.
    public var dayNumber: Int { LocalDateTime.days(year: year, month: month, day: day) }

    /// The weekday of this date.
    public var weekday: Weekday {
        // 1970-01-01 was a Thursday.
        Weekday(rawValue: (dayNumber + 3).floorMod(7)) ?? .monday
    }

    /// The date part at midnight.
    public var startOfDay: LocalDateTime { LocalDateTime(year: year, month: month, day: day) }

    /// Whether all components are within their calendar ranges (e.g. no February 30).
    public var isValid: Bool {
        (1...12).contains(month) && day >= 1 && day <= LocalDateTime.daysInMonth(year: year, month: month)
            && (0...23).contains(hour) && (0...59).contains(minute) && (0...60).contains(second)
    }

    /// This value shifted by a number of seconds of wall-clock time.
    public func adding(seconds: Int64) -> LocalDateTime {
        LocalDateTime(secondsSinceEpoch: secondsSinceEpoch + seconds)
    }

    /// This value shifted by whole days, keeping the time of day.
    public func adding(days: Int) -> LocalDateTime {
        let (y, m, d) = LocalDateTime.civil(fromDays: dayNumber + days)
        return LocalDateTime(year: y, month: m, day: d, hour: hour, minute: minute, second: second)
    }

    /// The instant of this wall-clock value read as UTC.
    public var asUTCInstant: Date { Date(timeIntervalSince1970: TimeInterval(secondsSinceEpoch)) }

    /// The UTC wall-clock value of an instant (sub-second parts are truncated).
    public init(utc date: Date) {
        self.init(secondsSinceEpoch: Int64(date.timeIntervalSince1970.rounded(.down)))
    }

    public static func < (lhs: LocalDateTime, rhs: LocalDateTime) -> Bool {
        (lhs.year, lhs.month, lhs.day, lhs.hour, lhs.minute, lhs.second)
            < (rhs.year, rhs.month, rhs.day, rhs.hour, rhs.minute, rhs.second)
    }

    /// ISO 8601 basic-like text, `2025-03-30T09:30:00`.
    public var description: String {
        func pad(_ v: Int, _ w: Int) -> String {
            let s = String(abs(v))
            return (v < 0 ? "-" : "") + String(repeating: "0", count: max(0, w - s.count)) + s
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2))"
    }

    // MARK: Calendar math (Howard Hinnant's days_from_civil / civil_from_days).

    /// Whether `year` is a Gregorian leap year.
    public static func isLeapYear(_ year: Int) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    /// Number of days in a month of a year.
    public static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Number of days in a year.
    public static func daysInYear(_ year: Int) -> Int { isLeapYear(year) ? 366 : 365 }

    /// Days since 1970-01-01 of a civil date.
    public static func days(year: Int, month: Int, day: Int) -> Int {
        Int(CivilDays.from(year: year, month: month, day: day))
    }

    /// The civil date of a count of days since 1970-01-01.
    public static func civil(fromDays z0: Int) -> (year: Int, month: Int, day: Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
    }
}

/// A day of the week, in RFC 5545 order starting with Monday (as `WKST` defaults to MO).
public enum Weekday: Int, Sendable, Hashable, CaseIterable, Comparable {
    case monday = 0, tuesday, wednesday, thursday, friday, saturday, sunday

    /// Parses the RFC 5545 two-letter code (`MO`, `TU`, …), case-insensitively.
    public init?(code: some StringProtocol) {
        switch code.uppercased() {
        case "MO": self = .monday
        case "TU": self = .tuesday
        case "WE": self = .wednesday
        case "TH": self = .thursday
        case "FR": self = .friday
        case "SA": self = .saturday
        case "SU": self = .sunday
        default: return nil
        }
    }

    /// The RFC 5545 two-letter code.
    public var code: String { ["MO", "TU", "WE", "TH", "FR", "SA", "SU"][rawValue] }

    public static func < (lhs: Weekday, rhs: Weekday) -> Bool { lhs.rawValue < rhs.rawValue }
}

extension BinaryInteger {
    /// Floor division (rounds toward negative infinity), needed for dates before the epoch.
    func floorDiv(_ d: Self) -> Self {
        let q = self / d
        return (self % d != 0 && ((self < 0) != (d < 0))) ? q - 1 : q
    }

    /// Modulo with a non-negative result for positive divisors.
    func floorMod(_ d: Self) -> Self {
        let r = self % d
        return r < 0 ? r + d : r
    }
}
