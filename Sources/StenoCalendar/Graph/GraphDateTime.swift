import Foundation
import StenoCore

/// Graph's date-time texts, read without a formatter (a full sync reads tens of thousands):
/// `dateTimeTimeZone.dateTime` is a local time with up to seven fractional digits
/// (`2026-11-20T17:00:00.0000000`); `originalStart` is a `DateTimeOffset`
/// (`2026-11-20T17:00:00Z`, `…+01:00`).
enum GraphDateTime {
    /// The local date-time of a `dateTime` text (fractions of a second are dropped).
    static func local(_ text: String) -> LocalDateTime? {
        var utf8 = text.utf8[...]
        return parseLocal(&utf8)
    }

    /// The instant of a `DateTimeOffset` text; a text without an offset is read as UTC.
    static func instant(_ text: String) -> Date? {
        var utf8 = text.utf8[...]
        guard let local = parseLocal(&utf8) else { return nil }
        var offset = 0
        if let sign = utf8.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            utf8 = utf8.dropFirst()
            guard let hours = number(&utf8, digits: 2) else { return nil }
            if utf8.first == UInt8(ascii: ":") { utf8 = utf8.dropFirst() }
            let minutes = number(&utf8, digits: 2) ?? 0
            offset = (hours * 3600 + minutes * 60) * (sign == UInt8(ascii: "-") ? -1 : 1)
        } else if let zulu = utf8.first, zulu != UInt8(ascii: "Z") && zulu != UInt8(ascii: "z") {
            return nil
        }
        return Date(timeIntervalSince1970: TimeInterval(local.secondsSinceEpoch - Int64(offset)))
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

    /// `YYYY-MM-DDTHH:MM:SS` plus an optional fraction, consumed from `text`.
    private static func parseLocal(_ text: inout Substring.UTF8View) -> LocalDateTime? {
        guard let year = number(&text, digits: 4), expect(&text, "-"), let month = number(&text, digits: 2), expect(&text, "-"),
            let day = number(&text, digits: 2)
        else { return nil }
        var hour = 0, minute = 0, second = 0
        if expect(&text, "T") {
            guard let h = number(&text, digits: 2), expect(&text, ":"), let m = number(&text, digits: 2) else { return nil }
            hour = h
            minute = m
            if expect(&text, ":") {
                guard let s = number(&text, digits: 2) else { return nil }
                second = s
            }
            if expect(&text, ".") {
                while let digit = text.first, digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") { text = text.dropFirst() }
            }
        }
        let local = LocalDateTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        return local.isValid ? local : nil
    }

    private static func number(_ text: inout Substring.UTF8View, digits: Int) -> Int? {
        var value = 0
        for _ in 0..<digits {
            guard let digit = text.first, digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(digit - UInt8(ascii: "0"))
            text = text.dropFirst()
        }
        return value
    }

    private static func expect(_ text: inout Substring.UTF8View, _ character: Unicode.Scalar) -> Bool {
        guard text.first == UInt8(ascii: character) else { return false }
        text = text.dropFirst()
        return true
    }
}
