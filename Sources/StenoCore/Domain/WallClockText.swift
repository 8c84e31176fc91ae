import Foundation

/// A time as the clocks of a zone show it (`2026-11-20 09:30`, `2026-11-20`), computed from
/// the zone's offset at that instant and the civil calendar: `steno … -o csv` writes two times
/// per row, and through a `DateFormatter` (ICU) they were most of its own time.
///
/// Only for the years 1583–9999, where this calendar and a `DateFormatter`'s Gregorian one
/// agree (before 1583 it counts in the Julian calendar); elsewhere the functions return nil
/// and the caller formats the time the slow way.
public enum WallClockText {
    /// `yyyy-MM-dd HH:mm` of `date` in `zone`; nil outside the years 1583–9999.
    public static func minute(_ date: Date, in zone: TimeZone) -> String? {
        guard let time = civilTime(date, in: zone) else { return nil }
        var text = day(time.days)
        text.reserveCapacity(16)
        text += " " + twoDigits(time.secondOfDay / 3600) + ":" + twoDigits(time.secondOfDay % 3600 / 60)
        return text
    }

    /// `yyyy-MM-dd` of `date` in `zone`; nil outside the years 1583–9999.
    public static func day(_ date: Date, in zone: TimeZone) -> String? {
        civilTime(date, in: zone).map { day($0.days) }
    }

    /// The local day number and second of that day of `date` in `zone`, when its year is in range.
    private static func civilTime(_ date: Date, in zone: TimeZone) -> (days: Int64, secondOfDay: Int)? {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        // 1583-01-01 and 10000-01-01 (UTC), a day of margin for any offset.
        guard seconds > -12_212_553_600 + 86_400, seconds < 253_402_300_800 - 86_400 else { return nil }
        let local = Int64(seconds) + Int64(zone.secondsFromGMT(for: date))
        let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        guard (-141_349...2_932_896).contains(days) else { return nil }  // 1583-01-01 … 9999-12-31
        return (days, Int(local - days * 86_400))
    }

    private static func day(_ days: Int64) -> String {
        let civil = CivilDays.civil(days)
        return String(civil.year) + "-" + twoDigits(civil.month) + "-" + twoDigits(civil.day)
    }

    private static func twoDigits(_ number: Int) -> String { number < 10 ? "0" + String(number) : String(number) }
}
