import Foundation
import Testing

@testable import StenoCore

/// Cron expressions: every field form, the day OR rule, leap days, and DST in two zones.
@Suite("Cron schedules")
struct CronScheduleTests {
    static let utc = TimeZone(identifier: "UTC")!
    static let berlin = TimeZone(identifier: "Europe/Berlin")!
    static let newYork = TimeZone(identifier: "America/New_York")!

    /// `yyyy-MM-dd HH:mm ±hh:mm` in `zone`.
    static func format(_ date: Date, in zone: TimeZone) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        formatter.dateFormat = "yyyy-MM-dd HH:mm xxx"
        return formatter.string(from: date)
    }

    static func date(_ text: String) -> Date {
        let formatter = ISO8601DateFormatter()
        guard let date = formatter.date(from: text) else { fatalError("bad test date \(text)") }
        return date
    }

    /// The next `count` fire times after `start`, formatted in the zone.
    static func fires(_ expression: String, after start: String, in zone: TimeZone = utc, count: Int) throws -> [String] {
        let schedule = try CronSchedule(expression)
        var current = date(start)
        var result: [String] = []
        for _ in 0..<count {
            guard let next = schedule.nextFireDate(after: current, in: zone) else { break }
            #expect(next > current)
            result.append(format(next, in: zone))
            current = next
        }
        return result
    }

    // MARK: Field forms

    @Test func everyMinuteAndStepsAndRanges() throws {
        #expect(try Self.fires("* * * * *", after: "2026-11-20T09:30:15Z", count: 2) == ["2026-11-20 09:31 +00:00", "2026-11-20 09:32 +00:00"])
        #expect(
            try Self.fires("*/15 9-10 * * *", after: "2026-11-20T10:31:00Z", count: 3)
                == ["2026-11-20 10:45 +00:00", "2026-11-21 09:00 +00:00", "2026-11-21 09:15 +00:00"])
        #expect(
            try Self.fires("10-50/20 0 * * *", after: "2026-11-20T00:00:00Z", count: 4)
                == ["2026-11-20 00:10 +00:00", "2026-11-20 00:30 +00:00", "2026-11-20 00:50 +00:00", "2026-11-21 00:10 +00:00"])
        #expect(try Self.fires("0,30 12 * * *", after: "2026-11-20T12:00:00Z", count: 2) == ["2026-11-20 12:30 +00:00", "2026-11-21 12:00 +00:00"])
        #expect(try Self.fires("45/5 1 * * *", after: "2026-11-20T01:50:00Z", count: 2) == ["2026-11-20 01:55 +00:00", "2026-11-21 01:45 +00:00"])
    }

    @Test func namesForMonthsAndWeekdaysAndSevenIsSunday() throws {
        #expect(try Self.fires("0 0 1 jan,JUL *", after: "2026-02-01T00:00:00Z", count: 2) == ["2026-07-01 00:00 +00:00", "2027-01-01 00:00 +00:00"])
        // 2026-11-20 is a Friday.
        #expect(
            try Self.fires("0 8 * * MON-FRI", after: "2026-11-20T09:00:00Z", count: 2)
                == ["2026-11-23 08:00 +00:00", "2026-11-24 08:00 +00:00"])
        #expect(try Self.fires("0 8 * * 7", after: "2026-11-20T09:00:00Z", count: 1) == ["2026-11-22 08:00 +00:00"])
        #expect(try Self.fires("0 8 * * sun", after: "2026-11-20T09:00:00Z", count: 1) == ["2026-11-22 08:00 +00:00"])
    }

    @Test func dayOfMonthOrDayOfWeekWhenBothAreRestricted() throws {
        // The 13th (a Friday in November 2026, a Sunday in December) OR any Friday.
        #expect(
            try Self.fires("0 9 13 * FRI", after: "2026-11-14T00:00:00Z", count: 5)
                == ["2026-11-20 09:00 +00:00", "2026-11-27 09:00 +00:00", "2026-12-04 09:00 +00:00",
                    "2026-12-11 09:00 +00:00", "2026-12-13 09:00 +00:00"])
        // A day field starting with `*` does not restrict: both must match (Mondays that are 1st/11th/21st/31st).
        #expect(try Self.fires("0 9 */10 * MON", after: "2026-11-01T00:00:00Z", count: 2) == ["2026-12-21 09:00 +00:00", "2027-01-11 09:00 +00:00"])
    }

    @Test func februaryTwentyNinthAndImpossibleDates() throws {
        #expect(try Self.fires("0 0 29 2 *", after: "2026-01-01T00:00:00Z", count: 2) == ["2028-02-29 00:00 +00:00", "2032-02-29 00:00 +00:00"])
        #expect(try Self.fires("0 0 31 * *", after: "2026-02-01T00:00:00Z", count: 2) == ["2026-03-31 00:00 +00:00", "2026-05-31 00:00 +00:00"])
        let never = try CronSchedule("0 0 30 2 *")
        #expect(never.nextFireDate(after: Self.date("2026-01-01T00:00:00Z"), in: Self.utc) == nil)
    }

    @Test func macros() throws {
        #expect(try Self.fires("@hourly", after: "2026-11-20T09:30:00Z", count: 1) == ["2026-11-20 10:00 +00:00"])
        #expect(try Self.fires("@daily", after: "2026-11-20T09:30:00Z", count: 1) == ["2026-11-21 00:00 +00:00"])
        #expect(try Self.fires("@midnight", after: "2026-11-20T09:30:00Z", count: 1) == ["2026-11-21 00:00 +00:00"])
        #expect(try Self.fires("@weekly", after: "2026-11-20T09:30:00Z", count: 1) == ["2026-11-22 00:00 +00:00"])
        #expect(try Self.fires("@monthly", after: "2026-11-20T09:30:00Z", count: 1) == ["2026-12-01 00:00 +00:00"])
        #expect(try Self.fires("@yearly", after: "2026-11-20T09:30:00Z", count: 1) == ["2027-01-01 00:00 +00:00"])
        #expect(try Self.fires("@annually", after: "2026-11-20T09:30:00Z", count: 1) == ["2027-01-01 00:00 +00:00"])
    }

    @Test(arguments: [
        ("60 * * * *", "minute: 60 is out of range 0-59"),
        ("* 24 * * *", "hour: 24 is out of range 0-23"),
        ("* * 0 * *", "day-of-month: 0 is out of range 1-31"),
        ("* * * 13 *", "month: 13 is out of range 1-12"),
        ("* * * * 8", "day-of-week: 8 is out of range 0-7"),
        ("* * *", "expected 5 fields"),
        ("@reboot", "unknown macro"),
        ("5-1 * * * *", "runs backwards"),
        ("*/0 * * * *", "must be a positive number"),
        ("0 0 * * FOO", "not a number or a name like SUN"),
        ("0,,1 * * * *", "empty list item"),
    ])
    func invalidExpressionsSayWhatIsWrong(expression: String, reason: String) {
        do {
            _ = try CronSchedule(expression)
            Issue.record("\(expression) was accepted")
        } catch {
            #expect(error.description.contains(reason), "\(error.description)")
        }
    }

    // MARK: Daylight saving time

    @Test func berlinSpringForwardFiresOnceAtTheFirstValidMinute() throws {
        // 2026-03-29: 02:00 CET → 03:00 CEST; 02:30 does not exist.
        #expect(
            try Self.fires("30 2 * * *", after: "2026-03-27T12:00:00Z", in: Self.berlin, count: 3)
                == ["2026-03-28 02:30 +01:00", "2026-03-29 03:00 +02:00", "2026-03-30 02:30 +02:00"])
        // Two times in the gap and 03:00 itself: one firing at 03:00.
        #expect(
            try Self.fires("*/30 * * * *", after: "2026-03-29T00:15:00Z", in: Self.berlin, count: 3)
                == ["2026-03-29 01:30 +01:00", "2026-03-29 03:00 +02:00", "2026-03-29 03:30 +02:00"])
        #expect(
            try Self.fires("0 3 * * *", after: "2026-03-27T12:00:00Z", in: Self.berlin, count: 3)
                == ["2026-03-28 03:00 +01:00", "2026-03-29 03:00 +02:00", "2026-03-30 03:00 +02:00"])
    }

    @Test func berlinFallBackFiresOnceInTheRepeatedHour() throws {
        // 2026-10-25: 03:00 CEST → 02:00 CET; 02:00–02:59 happens twice.
        #expect(
            try Self.fires("30 2 * * *", after: "2026-10-23T12:00:00Z", in: Self.berlin, count: 3)
                == ["2026-10-24 02:30 +02:00", "2026-10-25 02:30 +02:00", "2026-10-26 02:30 +01:00"])
        #expect(
            try Self.fires("0 3 * * *", after: "2026-10-23T12:00:00Z", in: Self.berlin, count: 3)
                == ["2026-10-24 03:00 +02:00", "2026-10-25 03:00 +01:00", "2026-10-26 03:00 +01:00"])
        #expect(
            try Self.fires("*/30 * * * *", after: "2026-10-24T23:15:00Z", in: Self.berlin, count: 4)
                == ["2026-10-25 01:30 +02:00", "2026-10-25 02:00 +02:00", "2026-10-25 02:30 +02:00", "2026-10-25 03:00 +01:00"])
        // Asked from inside the second pass of the repeated hour: nothing fires again before 03:00.
        #expect(try Self.fires("*/15 * * * *", after: "2026-10-25T01:05:00Z", in: Self.berlin, count: 1) == ["2026-10-25 03:00 +01:00"])
    }

    @Test func newYorkGapAndOverlap() throws {
        // 2026-03-08: 02:00 EST → 03:00 EDT.
        #expect(
            try Self.fires("30 2 * * *", after: "2026-03-07T12:00:00Z", in: Self.newYork, count: 3)
                == ["2026-03-08 03:00 -04:00", "2026-03-09 02:30 -04:00", "2026-03-10 02:30 -04:00"])
        // 2026-11-01: 02:00 EDT → 01:00 EST; 01:30 happens twice and fires once.
        #expect(
            try Self.fires("30 1 * * *", after: "2026-10-31T12:00:00Z", in: Self.newYork, count: 3)
                == ["2026-11-01 01:30 -04:00", "2026-11-02 01:30 -05:00", "2026-11-03 01:30 -05:00"])
        #expect(
            try Self.fires("0 3 * * *", after: "2026-10-31T12:00:00Z", in: Self.newYork, count: 2)
                == ["2026-11-01 03:00 -05:00", "2026-11-02 03:00 -05:00"])
    }

    @Test func aDailyJobFiresOncePerDayForAYearInBothZones() throws {
        for zone in [Self.berlin, Self.newYork] {
            for expression in ["0 3 * * *", "30 2 * * *", "30 1 * * *"] {
                let schedule = try CronSchedule(expression)
                var current = Self.date("2026-01-01T12:00:00Z")
                var days: [String] = []
                for _ in 0..<365 {
                    guard let next = schedule.nextFireDate(after: current, in: zone) else { break }
                    days.append(String(Self.format(next, in: zone).prefix(10)))
                    current = next
                }
                #expect(days.count == 365)
                #expect(Set(days).count == 365, "\(expression) in \(zone.identifier) fired twice on a day")
            }
        }
    }
}
