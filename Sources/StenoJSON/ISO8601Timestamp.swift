import Foundation

/// The ISO 8601 form Steno uses for `Date` in JSON: `2026-11-20T09:30:00Z`, in UTC, with
/// `.SSS` milliseconds only when the instant has a sub-second part.
///
/// Hand-written rather than `ISO8601DateFormatter` because it runs for every timestamp of every
/// RPC, must be `Sendable` without locks, and the civil-calendar arithmetic is small.
public enum ISO8601Timestamp {
    /// The earliest instant this form can write: 0001-01-01T00:00:00Z.
    public static let earliest = Date(timeIntervalSince1970: -62_135_596_800)
    /// The latest instant this form can write: 9999-12-31T23:59:59.999Z.
    public static let latest = Date(timeIntervalSince1970: 253_402_300_799.999)

    /// `date` moved into `earliest...latest`, for bounds of a search such as "from the year 1"
    /// that a zone east or west of UTC pushes just past the years 0001–9999.
    public static func clamped(_ date: Date) -> Date {
        min(max(date, earliest), latest)
    }

    /// Formats `date` in UTC, e.g. `2026-11-20T09:30:00Z` or `2026-11-20T09:30:00.123Z`
    /// (rounded to the millisecond). Returns nil for instants outside the years 0001–9999.
    public static func string(from date: Date) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(24)
        guard write(date, to: &out) else { return nil }
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the text `string(from:)` gives (ASCII, no quotes) to `out`, for JSON written
    /// straight into bytes; returns false, appending nothing, for instants outside 0001–9999.
    @discardableResult
    public static func write(_ date: Date, to out: inout [UInt8]) -> Bool {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite, abs(seconds) < 300_000_000_000 else { return false }
        let totalMillis = Int64((seconds * 1000).rounded())
        let wholeSeconds = floorDivide(totalMillis, 1000)
        let millis = Int(totalMillis - wholeSeconds * 1000)
        let days = floorDivide(wholeSeconds, 86_400)
        let secondOfDay = Int(wholeSeconds - days * 86_400)
        let (year, month, day) = civil(fromDays: days)
        guard year >= 1 && year <= 9999 else { return false }

        // Fixed-width ASCII appended in place: no intermediate strings.
        func digits(_ value: Int, _ width: Int, then separator: UInt8?) {
            var divisor = 1
            for _ in 1..<width { divisor *= 10 }
            while divisor > 0 {
                out.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
            if let separator { out.append(separator) }
        }
        digits(year, 4, then: UInt8(ascii: "-"))
        digits(month, 2, then: UInt8(ascii: "-"))
        digits(day, 2, then: UInt8(ascii: "T"))
        digits(secondOfDay / 3600, 2, then: UInt8(ascii: ":"))
        digits(secondOfDay / 60 % 60, 2, then: UInt8(ascii: ":"))
        digits(secondOfDay % 60, 2, then: nil)
        if millis != 0 {
            out.append(UInt8(ascii: "."))
            digits(millis, 3, then: nil)
        }
        out.append(UInt8(ascii: "Z"))
        return true
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM|±HHMM)`; `t`/`z` and a space for `T` are
    /// accepted too. A zone designator is required (a local time names no instant).
    public static func date(from text: String) -> Date? {
        var text = text
        return text.withUTF8 { date(fromUTF8: $0) }
    }

    static func date(fromUTF8 bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        var index = 0
        func number(_ digits: Int) -> Int? {
            guard index + digits <= bytes.count else { return nil }
            var value = 0
            for _ in 0..<digits {
                let digit = bytes[index] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value * 10 + Int(digit)
                index += 1
            }
            return value
        }
        func expect(_ first: UInt8, _ second: UInt8? = nil, _ third: UInt8? = nil) -> Bool {
            guard index < bytes.count else { return false }
            let byte = bytes[index]
            guard byte == first || byte == second || byte == third else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect(UInt8(ascii: "-")), let month = number(2), expect(UInt8(ascii: "-")),
              let day = number(2), expect(UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: " ")),
              let hour = number(2), expect(UInt8(ascii: ":")), let minute = number(2), expect(UInt8(ascii: ":")),
              let second = number(2) else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
              hour < 24, minute < 60, second <= 60 else { return nil }

        var fraction = 0.0
        if expect(UInt8(ascii: ".")) {
            var scale = 0.1
            let fractionStart = index
            while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 {
                fraction += Double(bytes[index] - UInt8(ascii: "0")) * scale
                scale /= 10
                index += 1
            }
            guard index > fractionStart else { return nil }
        }

        var offsetSeconds = 0
        if expect(UInt8(ascii: "Z"), UInt8(ascii: "z")) {
            offsetSeconds = 0
        } else if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let offsetHours = number(2) else { return nil }
            _ = expect(UInt8(ascii: ":"))
            guard let offsetMinutes = number(2), offsetHours < 24, offsetMinutes < 60 else { return nil }
            offsetSeconds = sign * (offsetHours * 3600 + offsetMinutes * 60)
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }

        let days = daysFromCivil(year: year, month: month, day: day)
        let local = days * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        let utc = local - Int64(offsetSeconds)
        return Date(timeIntervalSince1970: Double(utc) + fraction)
    }

    // MARK: Civil calendar (proleptic Gregorian), after Howard Hinnant's algorithms.

    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func civil(fromDays days: Int64) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (Int(year), Int(month), Int(day))
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let quotient = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? quotient - 1 : quotient
    }
}
