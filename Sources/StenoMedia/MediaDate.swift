import Foundation
import StenoCore

/// Parses the date strings containers carry (ID3 TDRC, Vorbis DATE, Matroska tags, …).
///
/// Hand-written rather than `ISO8601DateFormatter` because it must accept the partial and
/// sloppy forms real files hold and it runs on every file.
enum MediaDate {
    /// An instant: a calendar date *with* a time of day, optional seconds, fraction and
    /// offset. Nil for a bare year or date (a day is not a recording time) and for junk.
    /// Times without an offset are taken as UTC.
    static func parse(_ text: String) -> Date? {
        let s = Array(text.utf8.prefix(64))
        var i = 0
        func digits(_ n: Int) -> Int? {
            guard i + n <= s.count else { return nil }
            var v = 0
            for k in 0..<n {
                let c = s[i + k]
                guard c >= 0x30 && c <= 0x39 else { return nil }
                v = v * 10 + Int(c - 0x30)
            }
            i += n
            return v
        }
        func sep(_ allowed: String) -> Bool {
            guard i < s.count, allowed.utf8.contains(s[i]) else { return false }
            i += 1
            return true
        }
        while i < s.count, s[i] == 0x20 { i += 1 }
        guard let year = digits(4), sep("-:/"), let month = digits(2), sep("-:/"), let day = digits(2) else { return nil }
        guard (1..<13).contains(month), (1..<32).contains(day), year >= 1900, year < 3000 else { return nil }
        guard sep("T "), let hour = digits(2), sep(":-"), let minute = digits(2) else { return nil }
        var second = 0.0, offset = 0
        if sep(":-") {
            guard let sec = digits(2) else { return nil }
            second = Double(sec)
            if sep(".,") {
                var scale = 0.1
                while i < s.count, s[i] >= 0x30, s[i] <= 0x39 {
                    second += Double(s[i] - 0x30) * scale
                    scale /= 10
                    i += 1
                }
            }
        }
        guard hour < 25, minute < 60, second < 61 else { return nil }
        while i < s.count, s[i] == 0x20 { i += 1 }
        if sep("Z") {
            offset = 0
        } else if i < s.count, s[i] == 0x2B || s[i] == 0x2D {
            let sign = s[i] == 0x2D ? -1 : 1
            i += 1
            guard let oh = digits(2) else { return nil }
            _ = sep(":")
            let om = digits(2) ?? 0
            offset = sign * (oh * 3600 + om * 60)
        }
        let days = Int(CivilDays.from(year: year, month: month, day: day))
        let unix = Double(days * 86400 + hour * 3600 + minute * 60 - offset) + second
        return Date(timeIntervalSince1970: unix)
    }


    /// Seconds between 1904-01-01 (QuickTime/MP4 epoch) and 1970-01-01.
    static let mp4EpochOffset: Double = 2_082_844_800
    /// Seconds between 1970-01-01 and 2001-01-01 (Matroska DateUTC epoch).
    static let matroskaEpochOffset: Double = 978_307_200
}

/// Collects text tags with lowercased keys, bounded in number and size.
struct TagSet {
    private(set) var values: [String: String] = [:]

    /// Adds `value` under `key` (lowercased); the first value for a key wins,
    /// empty values are dropped.
    mutating func add(_ key: String, _ value: String) {
        let k = key.lowercased()
        guard !k.isEmpty, !value.isEmpty, values.count < MediaLimits.maxTagCount, values[k] == nil else { return }
        values[k] = String(value.prefix(MediaLimits.maxTagValueBytes))
    }

    /// A creation time from the usual date-bearing keys, if any parses.
    var creationTime: Date? {
        for key in ["creation_time", "creationdate", "date_recorded", "date", "year", "icrd", "recorded date"] {
            if let v = values[key], let d = MediaDate.parse(v) { return d }
        }
        return nil
    }
}
