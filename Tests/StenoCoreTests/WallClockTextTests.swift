import Foundation
import StenoCore
import Testing

/// `WallClockText` writes what a `DateFormatter` (ICU) writes for the same instant and zone,
/// across daylight saving, half-hour and 45-minute offsets and historic local mean times with
/// seconds, and leaves the years outside 1583–9999 to it.
@Suite("Wall-clock text")
struct WallClockTextTests {
    static let zones = [
        "UTC", "Europe/Paris", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe", "Pacific/Chatham", "America/St_Johns",
        "Africa/Monrovia", "Europe/Amsterdam", "Pacific/Kiritimati", "Pacific/Pago_Pago", "Asia/Kathmandu",
    ].compactMap(TimeZone.init(identifier:)) + [TimeZone(secondsFromGMT: -3 * 3600 - 1800)].compactMap { $0 }

    static func formatted(_ date: Date, _ pattern: String, _ zone: TimeZone) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        formatter.dateFormat = pattern
        return formatter.string(from: date)
    }

    @Test func randomInstantsReadAsADateFormatterWritesThem() {
        var generator = SystemRandomNumberGenerator()
        let formatters = Self.zones.map { zone in
            ["yyyy-MM-dd HH:mm", "yyyy-MM-dd"].map { pattern in
                let formatter = DateFormatter()
                formatter.locale = Locale(identifier: "en_US_POSIX")
                formatter.timeZone = zone
                formatter.dateFormat = pattern
                return formatter
            }
        }
        var compared = 0
        for round in 0..<6_000 {
            // Mostly near today, some across the whole range, some on whole minutes and days.
            let seconds: Double
            switch round % 4 {
            case 0: seconds = Double.random(in: -12_200_000_000...253_400_000_000, using: &generator)
            case 1: seconds = Double.random(in: -2_500_000_000...2_500_000_000, using: &generator)
            case 2: seconds = (Double.random(in: 0...2_000_000_000, using: &generator) / 60).rounded(.down) * 60
            default: seconds = Double(Int.random(in: -300_000...300_000, using: &generator)) * 86_400 / 10 - 0.001
            }
            let date = Date(timeIntervalSince1970: seconds)
            let index = round % Self.zones.count
            let zone = Self.zones[index]
            if let minute = WallClockText.minute(date, in: zone) {
                #expect(minute == formatters[index][0].string(from: date), "\(seconds) in \(zone.identifier)")
                compared += 1
            }
            if let day = WallClockText.day(date, in: zone) {
                #expect(day == formatters[index][1].string(from: date), "\(seconds) in \(zone.identifier)")
            }
        }
        #expect(compared > 5_000)
    }

    @Test func daylightSavingEdgesMatch() throws {
        let paris = try #require(TimeZone(identifier: "Europe/Paris"))
        // 2026-03-29 01:00 UTC (clocks jump to 03:00) and 2026-10-25 01:00 UTC (back to 02:00).
        for edge in [1_774_746_000.0, 1_792_890_000.0] {
            for step in stride(from: -7_200.0, through: 7_200, by: 599) {
                let date = Date(timeIntervalSince1970: edge + step)
                #expect(WallClockText.minute(date, in: paris) == Self.formatted(date, "yyyy-MM-dd HH:mm", paris))
            }
        }
    }

    @Test func yearsACalendarReadsOtherwiseAreLeftToTheFormatter() throws {
        let utc = try #require(TimeZone(identifier: "UTC"))
        #expect(WallClockText.minute(Date(timeIntervalSince1970: -12_212_553_600 - 1), in: utc) == nil)  // 1582-12-31
        #expect(WallClockText.minute(Date(timeIntervalSince1970: -12_212_553_600 + 86_400 * 2), in: utc) == "1583-01-03 00:00")
        #expect(WallClockText.day(Date(timeIntervalSince1970: 253_402_300_800), in: utc) == nil)  // 10000-01-01
        #expect(WallClockText.minute(Date.distantPast, in: utc) == nil)
        #expect(WallClockText.minute(Date(timeIntervalSince1970: 1e12), in: utc) == nil)  // the year 33658
        #expect(WallClockText.minute(Date.distantFuture, in: utc) == Self.formatted(Date.distantFuture, "yyyy-MM-dd HH:mm", utc))
    }
}
