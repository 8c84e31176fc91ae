import Foundation
import StenoCalendar
import StenoCore
import Testing

@Suite("Time zones: Windows names, DST gaps and overlaps, VTIMEZONE")
struct TimeZoneTests {
    @Test(arguments: [
        ("W. Europe Standard Time", "Europe/Berlin"),
        ("Pacific Standard Time", "America/Los_Angeles"),
        ("Eastern Standard Time", "America/New_York"),
        ("GMT Standard Time", "Europe/London"),
        ("Tokyo Standard Time", "Asia/Tokyo"),
        ("India Standard Time", "Asia/Calcutta"),
        ("w. europe standard time", "Europe/Berlin"),
        ("\"Romance Standard Time\"", "Europe/Paris"),
    ])
    func windowsNames(windows: String, iana: String) {
        #expect(WindowsTimeZones.ianaIdentifier(forWindowsName: windows) == iana)
    }

    @Test func windowsUTCAndUnknown() {
        let utc = WindowsTimeZones.ianaIdentifier(forWindowsName: "UTC")
        #expect(utc == "Etc/UTC" || utc == "UTC")
        #expect(WindowsTimeZones.ianaIdentifier(forWindowsName: "Europe/Berlin") == nil)
        #expect(WindowsTimeZones.ianaIdentifier(forWindowsName: "\"w. europe standard time\" \t") == "Europe/Berlin")
        #expect(WindowsTimeZones.ianaIdentifier(forWindowsName: "' '") == nil)
        #expect(WindowsTimeZones.table.count > 130)
        // Every mapped name is known to the system's tz database.
        for (windows, iana) in WindowsTimeZones.table {
            #expect(TimeZone(identifier: iana) != nil, "\(windows) → \(iana)")
        }
    }

    @Test func gapMovesForwardAndOverlapTakesFirst() throws {
        let berlin = try #require(TimeZoneRules.iana("Europe/Berlin"))
        // 2025-03-30 02:30 does not exist in Berlin: 01:30 UTC (= 03:30 CEST).
        #expect(berlin.utcSeconds(for: LocalDateTime(year: 2025, month: 3, day: 30, hour: 2, minute: 30)) == 1_743_298_200)
        // 2025-10-26 02:30 exists twice: the first is 00:30 UTC (CEST).
        #expect(berlin.utcSeconds(for: LocalDateTime(year: 2025, month: 10, day: 26, hour: 2, minute: 30)) == 1_761_438_600)
        let local = berlin.localDateTime(for: Date(timeIntervalSince1970: 1_761_442_200))  // 01:30 UTC
        #expect(local == LocalDateTime(year: 2025, month: 10, day: 26, hour: 2, minute: 30))
        #expect(TimeZoneRules.iana("UTC") == .utc)
        #expect(TimeZoneRules.iana("Not/AZone") == nil)
    }

    @Test func vtimezoneObservancesMatchIANA() throws {
        let text = try String(contentsOf: Fixtures.recurrenceDirectory.appendingPathComponent("outlook-windows-tzid.ics"), encoding: .utf8)
        let calendar = try ICalendar.parse(text)
        let custom = try #require(calendar.timeZones["W. Europe Standard Time"]).rules
        let berlin = try #require(TimeZoneRules.iana("Europe/Berlin"))
        var t: Int64 = 1_704_067_200  // 2024-01-01
        while t < 1_798_761_600 {  // 2027-01-01
            #expect(custom.offset(atUTCSeconds: t) == berlin.offset(atUTCSeconds: t))
            t += 3 * 3600 + 17
        }
    }

    @Test func occurrencesReportIANAZoneForWindowsNames() throws {
        let text = """
        BEGIN:VEVENT
        UID:w
        DTSTART;TZID=Eastern Standard Time:20250310T093000
        DTEND;TZID=Eastern Standard Time:20250310T100000
        END:VEVENT
        """
        let window = DateInterval(start: Date(timeIntervalSince1970: 1_741_000_000), duration: 30 * 86_400)
        let o = try #require(try ICalendar.parse(text).occurrences(in: window, defaultTimeZone: .gmt).first)
        #expect(o.timeZoneID == "America/New_York")
        #expect(o.start == Date(timeIntervalSince1970: 1_741_613_400))  // 13:30 UTC (EDT)
        #expect(o.recurrenceID == nil)
    }
}
