import Foundation
import StenoCalendar
import StenoCore
import Testing

@Suite("Values: DATE/DATE-TIME, DURATION, RRULE")
struct ValueParsingTests {
    @Test func dateAndDateTimeForms() throws {
        #expect(try ICalDateValue.parse("20250301", tzid: nil, valueType: nil) == .date(LocalDateTime(year: 2025, month: 3, day: 1)))
        #expect(try ICalDateValue.parse("20250301", tzid: nil, valueType: "DATE").isDate)
        let utc = try ICalDateValue.parse("20250301T093000Z", tzid: nil, valueType: nil)
        #expect(utc == .utc(LocalDateTime(year: 2025, month: 3, day: 1, hour: 9, minute: 30)))
        let floating = try ICalDateValue.parse("20250301T093000", tzid: nil, valueType: nil)
        #expect(floating == .floating(LocalDateTime(year: 2025, month: 3, day: 1, hour: 9, minute: 30)))
        let zoned = try ICalDateValue.parse("20250301T093000", tzid: "\"Europe/Berlin\"", valueType: nil)
        #expect(zoned == .zoned(LocalDateTime(year: 2025, month: 3, day: 1, hour: 9, minute: 30), tzid: "Europe/Berlin"))
        // A TZID on a UTC value is ignored: the Z wins.
        #expect(try ICalDateValue.parse("20250301T093000Z", tzid: "Europe/Berlin", valueType: nil) == utc)
    }

    @Test(arguments: ["2025030", "20251301", "20250230", "20250301T2500", "20250301T250000", "20250301T093000Zx", "abc", ""])
    func invalidDateValues(text: String) {
        #expect(throws: ICalendarError.self) { try ICalDateValue.parse(text, tzid: nil, valueType: nil) }
    }

    @Test func durationForms() throws {
        #expect(try ICalDuration(parsing: "P1W").totalSeconds == 604_800)
        #expect(try ICalDuration(parsing: "PT1H30M").totalSeconds == 5_400)
        #expect(try ICalDuration(parsing: "-PT15M").totalSeconds == -900)
        #expect(try ICalDuration(parsing: "+P1DT12H").totalSeconds == 129_600)
        #expect(try ICalDuration(parsing: "PT0S").totalSeconds == 0)
        #expect(try ICalDuration(parsing: "pt45m").description == "PT45M")
        #expect(try ICalDuration(parsing: "-PT15M").description == "-PT15M")
    }

    @Test(arguments: ["P", "PT", "1H", "PT1X", "P1H", "PT1D", "P1DT", "PT99999999999H", "P-1D"])
    func invalidDurations(text: String) {
        #expect(throws: ICalendarError.self) { try ICalDuration(parsing: text) }
    }

    @Test func recurrenceRuleText() throws {
        let rule = try RecurrenceRule(parsing: "RRULE:freq=monthly;byday=2TU,-1FR;BYSETPOS=-1;UNTIL=20250301T000000Z;WKST=SU;X-FOO=1")
        #expect(rule.frequency == .monthly)
        #expect(rule.byDay == [.init(.tuesday, ordinal: 2), .init(.friday, ordinal: -1)])
        #expect(rule.bySetPos == [-1])
        #expect(rule.weekStart == .sunday)
        #expect(rule.until == .utc(LocalDateTime(year: 2025, month: 3, day: 1)))
        #expect(rule.description == "FREQ=MONTHLY;UNTIL=20250301T000000Z;BYDAY=2TU,-1FR;BYSETPOS=-1;WKST=SU")
        #expect(try RecurrenceRule(parsing: "FREQ=DAILY;UNTIL=20250301").until == .date(LocalDateTime(year: 2025, month: 3, day: 1)))
    }

    @Test(arguments: ["BYDAY=MO", "FREQ=FORTNIGHTLY", "FREQ=DAILY;INTERVAL=0", "FREQ=DAILY;BYDAY=XX", "FREQ=DAILY;BYMONTH=13",
                      "FREQ=DAILY;BYMONTHDAY=0", "FREQ=DAILY;UNTIL=2025", "FREQ=DAILY;COUNT=x", "FREQ=DAILY;BYDAY=0MO", "FREQ"])
    func invalidRules(text: String) {
        #expect(throws: RecurrenceRuleError.self) { try RecurrenceRule(parsing: text) }
    }
}
