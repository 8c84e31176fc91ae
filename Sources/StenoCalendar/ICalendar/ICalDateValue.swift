import Foundation
import StenoCore

/// A `DTSTART`/`DTEND`/`RECURRENCE-ID`/`EXDATE`/`RDATE` value: DATE, or DATE-TIME in UTC,
/// floating (no zone) or with a `TZID`.
public enum ICalDateValue: Sendable, Hashable, CustomStringConvertible {
    /// `VALUE=DATE`, e.g. `20250301` (the time components are zero).
    case date(LocalDateTime)
    /// `20250301T093000Z`.
    case utc(LocalDateTime)
    /// `20250301T093000` without `TZID`: the same wall-clock time in every zone.
    case floating(LocalDateTime)
    /// `TZID=Europe/Berlin:20250301T093000`; the TZID is kept as written (quotes removed).
    case zoned(LocalDateTime, tzid: String)

    /// The wall-clock components as written.
    public var local: LocalDateTime {
        switch self {
        case .date(let v), .utc(let v), .floating(let v), .zoned(let v, _): return v
        }
    }

    /// Whether this is a DATE (all-day) value.
    public var isDate: Bool {
        if case .date = self { return true }
        return false
    }

    /// The TZID, if any.
    public var tzid: String? {
        if case .zoned(_, let tzid) = self { return tzid }
        return nil
    }

    /// The iCalendar text of the value (without parameters).
    public var description: String {
        let v = local
        let d = String(format: "%04d%02d%02d", v.year, v.month, v.day)
        let t = String(format: "T%02d%02d%02d", v.hour, v.minute, v.second)
        switch self {
        case .date: return d
        case .utc: return d + t + "Z"
        case .floating: return d + t
        case .zoned(_, let tzid): return "TZID=\(tzid):" + d + t
        }
    }

    /// Parses one value; `tzid` and `valueType` come from the `TZID` and `VALUE` parameters.
    ///
    /// Lenient about what real exporters emit: a `TZID` on a UTC value is ignored, and a
    /// date-time marked `VALUE=DATE` keeps only its date.
    public static func parse(_ text: String, tzid: String?, valueType: String?) throws(ICalendarError) -> ICalDateValue {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let bytes = Array(trimmed.utf8)
        func num(_ from: Int, _ len: Int) -> Int? {
            guard from + len <= bytes.count else { return nil }
            var n = 0
            for c in bytes[from..<(from + len)] {
                guard c >= 48, c <= 57 else { return nil }
                n = n * 10 + Int(c - 48)
            }
            return n
        }
        guard let y = num(0, 4), let m = num(4, 2), let d = num(6, 2) else {
            throw ICalendarError(line: 0, message: "'\(trimmed.prefix(40))' is not a DATE (YYYYMMDD) or DATE-TIME (YYYYMMDDTHHMMSS[Z])")
        }
        let date = LocalDateTime(year: y, month: m, day: d)
        guard date.isValid else { throw ICalendarError(line: 0, message: "'\(trimmed)' is not a valid calendar date") }
        if bytes.count == 8 || valueType?.equalsIgnoringASCIICase("DATE") == true {
            guard bytes.count == 8 || (bytes.count >= 15 && bytes[8] == UInt8(ascii: "T")) else {
                throw ICalendarError(line: 0, message: "'\(trimmed)' is not a DATE (YYYYMMDD)")
            }
            return .date(date)
        }
        guard bytes.count >= 15, bytes[8] == UInt8(ascii: "T") || bytes[8] == UInt8(ascii: "t"),
              let h = num(9, 2), let mi = num(11, 2), let s = num(13, 2) else {
            throw ICalendarError(line: 0, message: "'\(trimmed.prefix(40))' is not a DATE-TIME (YYYYMMDDTHHMMSS[Z])")
        }
        let value = LocalDateTime(year: y, month: m, day: d, hour: h, minute: mi, second: s)
        guard value.isValid else { throw ICalendarError(line: 0, message: "'\(trimmed)' is not a valid time of day") }
        let rest = bytes[15...]
        if rest.first == UInt8(ascii: "Z") || rest.first == UInt8(ascii: "z") {
            guard rest.count == 1 else { throw ICalendarError(line: 0, message: "unexpected text after 'Z' in '\(trimmed)'") }
            return .utc(value)
        }
        guard rest.isEmpty else { throw ICalendarError(line: 0, message: "unexpected text after the time in '\(trimmed)'") }
        if let tzid = tzid.map(cleanTZID), !tzid.isEmpty { return .zoned(value, tzid: tzid) }
        return .floating(value)
    }

    /// Removes quotes and surrounding whitespace from a TZID parameter value.
    static func cleanTZID(_ tzid: String) -> String {
        tzid.trimmingCharacters(in: CharacterSet(charactersIn: "\"' \t"))
    }
}

/// A calendar day (year, month, day), used for all-day occurrences.
public struct ICalDay: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The year.
    public var year: Int
    /// The month, 1...12.
    public var month: Int
    /// The day of month.
    public var day: Int

    /// Creates a day.
    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// The day of a wall-clock value.
    public init(_ local: LocalDateTime) {
        self.init(year: local.year, month: local.month, day: local.day)
    }

    public static func < (lhs: ICalDay, rhs: ICalDay) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    /// `YYYY-MM-DD`.
    public var description: String { String(format: "%04d-%02d-%02d", year, month, day) }
}
