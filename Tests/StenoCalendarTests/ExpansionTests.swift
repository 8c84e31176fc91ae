import Foundation
import StenoCalendar
import StenoCore
import Testing

@Suite("Expansion: identity, all-day, bounds")
struct ExpansionTests {
    let year2025 = DateInterval(start: Date(timeIntervalSince1970: 1_735_689_600), end: Date(timeIntervalSince1970: 1_767_225_600))

    @Test func nineThirtyStaysNineThirtyAcrossDST() throws {
        let text = try String(contentsOf: Fixtures.recurrenceDirectory.appendingPathComponent("dst-berlin-daily.ics"), encoding: .utf8)
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = berlin
        let occurrences = try ICalendar.parse(text).occurrences(in: year2025, defaultTimeZone: berlin)
        #expect(occurrences.count > 100)
        for o in occurrences {
            let parts = calendar.dateComponents([.hour, .minute], from: o.start)
            #expect(parts.hour == 9 && parts.minute == 30)
            #expect(o.timeZoneID == "Europe/Berlin")
            #expect(o.end.timeIntervalSince(o.start) == 1800)
        }
    }

    @Test func overridesCarryTheirFieldsAndCancelledStatus() throws {
        let text = """
        BEGIN:VCALENDAR
        BEGIN:VEVENT
        UID:s
        DTSTART;TZID=Europe/Berlin:20250303T093000
        DURATION:PT30M
        RRULE:FREQ=DAILY;COUNT=3
        SUMMARY:Daily
        ORGANIZER;CN=Boss:mailto:boss@example.com
        END:VEVENT
        BEGIN:VEVENT
        UID:s
        RECURRENCE-ID;TZID=Europe/Berlin:20250304T093000
        DTSTART;TZID=Europe/Berlin:20250304T094500
        DURATION:PT30M
        SUMMARY:Moved
        LOCATION:Elsewhere
        END:VEVENT
        BEGIN:VEVENT
        UID:s
        RECURRENCE-ID;TZID=Europe/Berlin:20250305T093000
        DTSTART;TZID=Europe/Berlin:20250305T093000
        STATUS:CANCELLED
        END:VEVENT
        END:VCALENDAR
        """
        let o = try ICalendar.parse(text).occurrences(in: year2025, defaultTimeZone: .gmt)
        #expect(o.count == 3)
        #expect(o.map(\.isOverride) == [false, true, true])
        #expect(o[1].summary == "Moved" && o[1].location == "Elsewhere")
        #expect(o[1].recurrenceID == Date(timeIntervalSince1970: 1_741_077_000))  // 08:30 UTC, the original start
        #expect(o[1].start == Date(timeIntervalSince1970: 1_741_077_900))
        #expect(o[2].status == .cancelled)
        #expect(o[0].organizer?.name == "Boss")
        #expect(Set(o.compactMap(\.recurrenceID)).count == 3)
    }

    @Test func allDayOccurrencesAreDatesInTheDefaultZone() throws {
        let text = "BEGIN:VEVENT\nUID:a\nDTSTART;VALUE=DATE:20250330\nDTEND;VALUE=DATE:20250401\nRRULE:FREQ=WEEKLY;COUNT=2\nEND:VEVENT"
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        let o = try ICalendar.parse(text).occurrences(in: year2025, defaultTimeZone: berlin)
        #expect(o.count == 2)
        #expect(o[0].isAllDay)
        #expect(o[0].allDayStart == ICalDay(year: 2025, month: 3, day: 30))
        #expect(o[0].allDayEnd == ICalDay(year: 2025, month: 4, day: 1))
        #expect(o[0].start == Date(timeIntervalSince1970: 1_743_289_200))  // midnight CET = 23:00 UTC
        #expect(o[0].end == Date(timeIntervalSince1970: 1_743_458_400))  // midnight CEST = 22:00 UTC
        #expect(o[0].timeZoneID == nil)
    }

    @Test func floatingTimesUseDefaultZoneOrXWRTimezone() throws {
        let event = "BEGIN:VEVENT\nUID:f\nDTSTART:20250310T090000\nEND:VEVENT"
        let ny = try #require(TimeZone(identifier: "America/New_York"))
        let plain = try ICalendar.parse("BEGIN:VCALENDAR\n\(event)\nEND:VCALENDAR").occurrences(in: year2025, defaultTimeZone: ny)
        #expect(plain.first?.start == Date(timeIntervalSince1970: 1_741_611_600))  // 13:00 UTC
        let google = try ICalendar.parse("BEGIN:VCALENDAR\nX-WR-TIMEZONE:Europe/Berlin\n\(event)\nEND:VCALENDAR")
        #expect(google.occurrences(in: year2025, defaultTimeZone: ny).first?.start == Date(timeIntervalSince1970: 1_741_593_600))  // 08:00 UTC
    }

    @Test func mirroredWindowDefaults() {
        let now = Date(timeIntervalSince1970: 1_750_000_000)
        let window = ICalendar.mirroredWindow(around: now)
        #expect(window.start == now.addingTimeInterval(-180 * 86_400))
        #expect(window.end == now.addingTimeInterval(365 * 86_400))
    }

    @Test func unboundedRulesStopAtTheWindowEnd() throws {
        let text = "BEGIN:VEVENT\nUID:u\nDTSTART:20000101T090000Z\nRRULE:FREQ=DAILY\nEND:VEVENT"
        let o = try ICalendar.parse(text).occurrences(in: year2025, defaultTimeZone: .gmt)
        #expect(o.count == 365)
    }

    @Test(arguments: [
        "FREQ=SECONDLY",
        "FREQ=MINUTELY;BYMONTH=2;BYMONTHDAY=30",
        "FREQ=YEARLY;BYMONTHDAY=31;BYMONTH=2",
        "FREQ=DAILY;BYDAY=MO;BYMONTHDAY=31;BYMONTH=2",
        "FREQ=SECONDLY;INTERVAL=1;BYSECOND=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20",
        "FREQ=HOURLY;BYYEARDAY=366;BYMONTH=1",
        "FREQ=MONTHLY;BYDAY=5MO;BYSETPOS=7",
    ])
    func pathologicalRulesTerminateQuickly(rule: String) throws {
        let text = "BEGIN:VEVENT\nUID:p\nDTSTART:19700101T000000Z\nRRULE:\(rule)\nEND:VEVENT"
        let clock = ContinuousClock()
        let elapsed = try clock.measure {
            let o = try ICalendar.parse(text).occurrences(in: year2025, defaultTimeZone: .gmt)
            #expect(o.count <= ExpansionLimits.default.maxOccurrences)
        }
        #expect(elapsed < .seconds(20), "\(rule) took \(elapsed)")
    }

    @Test func expansionLimitsCapASeries() throws {
        let rule = try RecurrenceRule(parsing: "FREQ=SECONDLY")
        let start = LocalDateTime(year: 2025, month: 1, day: 1)
        let values = rule.expand(start: start, limit: LocalDateTime(year: 2026, month: 1, day: 1),
                                 limits: ExpansionLimits(maxOccurrences: 1_000, maxIterations: 10_000))
        #expect(values.count == 1_000)
        #expect(values.last == LocalDateTime(year: 2025, month: 1, day: 1, hour: 0, minute: 16, second: 39))
    }
}
