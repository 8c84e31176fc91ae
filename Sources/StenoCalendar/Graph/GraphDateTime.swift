import Foundation
import StenoCore

/// Graph's date-time texts, read without a formatter (a full sync reads tens of thousands):
/// `dateTimeTimeZone.dateTime` is a local time with up to seven fractional digits
/// (`2026-11-20T17:00:00.0000000`); `originalStart` is a `DateTimeOffset`
/// (`2026-11-20T17:00:00Z`, `…+01:00`).
enum GraphDateTime {
    /// The local date-time of a `dateTime` text (fractions of a second are dropped).
    static func local(_ text: String) -> LocalDateTime? {
        reading(text) { cursor in cursor.local() }
    }

    /// The instant of a `DateTimeOffset` text; a text without an offset is read as UTC.
    static func instant(_ text: String) -> Date? {
        reading(text) { cursor in
            guard let local = cursor.local() else { return nil }
            var offset = 0
            if let sign = cursor.peek, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                cursor.index += 1
                guard let hours = cursor.number(digits: 2) else { return nil }
                _ = cursor.expect(":")
                let minutes = cursor.number(digits: 2) ?? 0
                offset = (hours * 3600 + minutes * 60) * (sign == UInt8(ascii: "-") ? -1 : 1)
            } else if let zulu = cursor.peek, zulu != UInt8(ascii: "Z") && zulu != UInt8(ascii: "z") {
                return nil
            }
            return Date(timeIntervalSince1970: TimeInterval(local.secondsSinceEpoch - Int64(offset)))
        }
    }

    /// The zone rules of a Graph time-zone name: "UTC", an IANA name, or a Windows name mapped
    /// through the CLDR table. Nil for names neither knows (custom zones).
    static func rules(_ name: String?) -> TimeZoneRules? {
        guard let name, !name.isEmpty else { return nil }
        if name == "UTC" || name == "tzone://Microsoft/Utc" || name == "Etc/UTC" { return .utc }
        if let iana = ianaName(name) { return TimeZoneRules.iana(iana) }
        return nil
    }

    /// The IANA name of a Graph zone name, nil when unknown.
    static func ianaName(_ name: String?) -> String? {
        guard let name, !name.isEmpty else { return nil }
        if let mapped = WindowsTimeZones.ianaIdentifier(forWindowsName: name) { return mapped }
        return TimeZone(identifier: name) != nil && name.contains("/") ? name : nil
    }

    /// Runs `read` over the text's UTF-8 bytes in place (a native string is not copied;
    /// walking a `Substring.UTF8View` index by index cost more than the parsing itself).
    private static func reading<Value>(_ text: String, _ read: (inout Cursor) -> Value?) -> Value? {
        var text = text
        return text.withUTF8 { bytes in
            var cursor = Cursor(bytes: bytes)
            return read(&cursor)
        }
    }

    /// A position in a date-time text's bytes.
    private struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        /// `YYYY-MM-DDTHH:MM:SS` plus an optional fraction.
        mutating func local() -> LocalDateTime? {
            guard let year = number(digits: 4), expect("-"), let month = number(digits: 2), expect("-"), let day = number(digits: 2)
            else { return nil }
            var hour = 0, minute = 0, second = 0
            if expect("T") {
                guard let h = number(digits: 2), expect(":"), let m = number(digits: 2) else { return nil }
                hour = h
                minute = m
                if expect(":") {
                    guard let s = number(digits: 2) else { return nil }
                    second = s
                }
                if expect(".") {
                    while let digit = peek, digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") { index += 1 }
                }
            }
            let local = LocalDateTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
            return local.isValid ? local : nil
        }

        mutating func number(digits: Int) -> Int? {
            var value = 0
            for _ in 0..<digits {
                guard let digit = peek, digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(digit - UInt8(ascii: "0"))
                index += 1
            }
            return value
        }

        mutating func expect(_ character: Unicode.Scalar) -> Bool {
            guard peek == UInt8(ascii: character) else { return false }
            index += 1
            return true
        }
    }
}
