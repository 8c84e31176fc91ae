import Foundation
import StenoCore
import StenoTesting
import Testing

/// Dates typed on the command line, resolved in Paris on Wednesday 2026-11-25 at 15:00 (CET,
/// +01:00): the words khal and gcalcli users type, offsets, ISO 8601, and refusals.
@Suite("Date expressions")
struct DateExpressionTests {
    static let paris = TimeZone(identifier: "Europe/Paris") ?? .current
    static let now = local("2026-11-25 15:00")

    /// A wall-clock time in Paris.
    static func local(_ text: String) -> Date {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = paris
        formatter.dateFormat = text.count == 10 ? "yyyy-MM-dd" : "yyyy-MM-dd HH:mm"
        return formatter.date(from: text) ?? .distantPast
    }

    static func parse(_ text: String) throws -> DateExpression {
        try DateExpression.parse(text, now: now, timeZone: paris)
    }

    /// The whole day or days from `first` up to (not including) `next`.
    static func days(_ first: String, _ next: String) -> DateExpression {
        DateExpression(start: local(first), end: local(next))
    }

    @Test func dayWords() throws {
        #expect(try Self.parse("today") == Self.days("2026-11-25", "2026-11-26"))
        #expect(try Self.parse("tomorrow") == Self.days("2026-11-26", "2026-11-27"))
        #expect(try Self.parse("yesterday") == Self.days("2026-11-24", "2026-11-25"))
        #expect(try Self.parse("  Today ") == Self.days("2026-11-25", "2026-11-26"))
        #expect(try Self.parse("now") == DateExpression(start: Self.now, end: Self.now))
        #expect(try Self.parse("now").isInstant)
    }

    /// A weekday alone is the next one, today included; `next` skips today, `last` looks back.
    @Test func weekdays() throws {
        #expect(try Self.parse("friday") == Self.days("2026-11-27", "2026-11-28"))
        #expect(try Self.parse("Fri") == Self.days("2026-11-27", "2026-11-28"))
        #expect(try Self.parse("wednesday") == Self.days("2026-11-25", "2026-11-26"))
        #expect(try Self.parse("this wednesday") == Self.days("2026-11-25", "2026-11-26"))
        #expect(try Self.parse("next wednesday") == Self.days("2026-12-02", "2026-12-03"))
        #expect(try Self.parse("last wednesday") == Self.days("2026-11-18", "2026-11-19"))
        #expect(try Self.parse("next friday") == Self.days("2026-11-27", "2026-11-28"))
        #expect(try Self.parse("LAST FRIDAY") == Self.days("2026-11-20", "2026-11-21"))
        #expect(try Self.parse("monday") == Self.days("2026-11-30", "2026-12-01"))
        #expect(try Self.parse("last monday") == Self.days("2026-11-23", "2026-11-24"))
    }

    /// Weeks start on Monday; months and years are whole.
    @Test func periods() throws {
        #expect(try Self.parse("this week") == Self.days("2026-11-23", "2026-11-30"))
        #expect(try Self.parse("last week") == Self.days("2026-11-16", "2026-11-23"))
        #expect(try Self.parse("next week") == Self.days("2026-11-30", "2026-12-07"))
        #expect(try Self.parse("this month") == Self.days("2026-11-01", "2026-12-01"))
        #expect(try Self.parse("next month") == Self.days("2026-12-01", "2027-01-01"))
        #expect(try Self.parse("last month") == Self.days("2026-10-01", "2026-11-01"))
        #expect(try Self.parse("next year") == Self.days("2027-01-01", "2028-01-01"))
        #expect(try Self.parse("last   day") == Self.days("2026-11-24", "2026-11-25"))
    }

    @Test func offsets() throws {
        #expect(try Self.parse("-7d") == Self.days("2026-11-18", "2026-11-19"))
        #expect(try Self.parse("+2w") == Self.days("2026-12-09", "2026-12-10"))
        #expect(try Self.parse("+3m") == Self.days("2027-02-25", "2027-02-26"))
        #expect(try Self.parse("-1y") == Self.days("2025-11-25", "2025-11-26"))
        #expect(try Self.parse("+0d") == Self.days("2026-11-25", "2026-11-26"))
        let twoHoursAgo = Self.now.addingTimeInterval(-7200)
        #expect(try Self.parse("-2h") == DateExpression(start: twoHoursAgo, end: twoHoursAgo))
        #expect(throws: DateExpressionError.self) { try Self.parse("+10000d") }
        #expect(throws: DateExpressionError.self) { try Self.parse("+99999999999999999999d") }
        #expect(throws: DateExpressionError.self) { try Self.parse("7d") }
        #expect(throws: DateExpressionError.self) { try Self.parse("-7x") }
    }

    /// A date is its whole day; a time without a zone is in the reader's zone.
    @Test func iso8601() throws {
        #expect(try Self.parse("2026-11-20") == Self.days("2026-11-20", "2026-11-21"))
        let nineThirty = Self.local("2026-11-20 09:30")
        #expect(try Self.parse("2026-11-20T09:30") == DateExpression(start: nineThirty, end: nineThirty))
        #expect(try Self.parse("2026-11-20 09:30") == DateExpression(start: nineThirty, end: nineThirty))
        #expect(try Self.parse("2026-11-20T09:30:00") == DateExpression(start: nineThirty, end: nineThirty))
        #expect(try Self.parse("2026-11-20T08:30:00Z").start == nineThirty)
        #expect(try Self.parse("2026-11-20T13:30+05:00").start == nineThirty)
        #expect(try Self.parse("2026-11-20T13:30+0500").start == nineThirty)
        // The day summer time starts in Paris has 23 hours.
        let spring = try Self.parse("2026-03-29")
        #expect(spring.end.timeIntervalSince(spring.start) == 23 * 3600)
    }

    @Test func whatNamesNoDateIsRefusedWithTheForms() {
        for text in ["", "   ", "someday", "next", "next fortnight", "2026-02-30", "2026-13-01", "2026-11-20T25:00", "2026-11-20T09:60",
                     "2026-11-20T09:30+25:00", "0000-01-01", "20261120", "friday 13", String(repeating: "today ", count: 20)]
        {
            do {
                let expression = try Self.parse(text)
                Issue.record("\(text.debugDescription) parsed as \(expression)")
            } catch let error as DateExpressionError {
                #expect(error.description.contains("next friday") && error.description.contains("-7d"), "\(error)")
            } catch {
                Issue.record("\(error)")
            }
        }
    }

    /// Any text gives a span or a `DateExpressionError`, never a crash or an inverted span.
    @Test func anyTextGivesASpanOrAnError() {
        var random = SeededRandom(seed: 21)
        let pieces = ["today", "next", "last", "this", "friday", "fri", "week", "month", "year", "day", "+", "-", "0", "7", "9", "d", "w", "m",
                      "y", "h", "2026", "-11", "-20", "T", " ", ":", "30", "Z", "+01:00", "é", "\u{0}", "😀", "99999999999", "\n", "-02-29",
                      "0001", "9999", "-00", "T24:00", "tomorrow", "now", "sunday"]
        let zones = [Self.paris, TimeZone(identifier: "UTC"), TimeZone(identifier: "Pacific/Kiritimati"), TimeZone(identifier: "America/St_Johns")]
            .compactMap { $0 }
        for round in 0..<20_000 {
            var text = ""
            for _ in 0..<Int.random(in: 0...5, using: &random) { text += pieces[Int.random(in: 0..<pieces.count, using: &random)] }
            let now = Date(timeIntervalSince1970: Double(Int64.random(in: -2_000_000_000...4_000_000_000, using: &random)))
            do {
                let expression = try DateExpression.parse(text, now: now, timeZone: zones[round % zones.count])
                #expect(expression.start <= expression.end, "\(text.debugDescription)")
            } catch {
                // Typed: a DateExpressionError, nothing else.
                #expect(!error.description.isEmpty)
            }
        }
    }

    /// A range reads a weekday alone the way it looks: `--from monday` on a Wednesday is since
    /// this week's Monday, not next Monday (which made `--from monday --to today` an empty
    /// range six days in seven); `--to` and a range looking ahead take the next one.
    @Test func aRangeReadsAWeekdayTheWayItLooks() throws {
        func range(_ from: String?, _ to: String?) throws -> (DateExpression?, DateExpression?) {
            let spans = try DateExpression.range(from: from, to: to, now: Self.now, timeZone: Self.paris)
            return (spans.from, spans.to)
        }
        let since = try range("monday", "today")
        #expect(since.0 == Self.days("2026-11-23", "2026-11-24") && since.1 == Self.days("2026-11-25", "2026-11-26"))
        #expect(try range("monday", nil).0 == Self.days("2026-11-23", "2026-11-24"))
        #expect(try range("wednesday", nil).0 == Self.days("2026-11-25", "2026-11-26"), "today is a Wednesday")
        #expect(try range("monday", "friday").0 == Self.days("2026-11-23", "2026-11-24"), "this week, Monday to Friday")
        #expect(try range("friday", "+2w").0 == Self.days("2026-11-27", "2026-11-28"), "looking ahead: the next Friday")
        #expect(try range("thursday", "yesterday").0 == Self.days("2026-11-19", "2026-11-20"))
        #expect(try range(nil, "monday").1 == Self.days("2026-11-30", "2026-12-01"), "--to alone: the next Monday")
        #expect(try range("-7d", "tuesday").1 == Self.days("2026-12-01", "2026-12-02"))
        #expect(try DateExpression.parse("monday", now: Self.now, timeZone: Self.paris, weekdays: .behind) == Self.days("2026-11-23", "2026-11-24"))
    }
}
