import Foundation
import StenoCalendar
import StenoCore
import Testing

@Suite("Calendar parsing: tolerance and errors")
struct CalendarParsingTests {
    @Test func toleratesMissingWrapperLowercaseAndUnknownComponents() throws {
        let text = """
        begin:vevent
        uid:abc
        dtstart;tzid="Europe/Berlin":20250301T093000
        dtend;tzid="Europe/Berlin":20250301T100000
        summary:Lower case
        x-custom-thing:kept
        BEGIN:VALARM
        TRIGGER:-PT15M
        ACTION:DISPLAY
        END:VALARM
        end:vevent
        BEGIN:VTODO
        UID:todo
        END:VTODO
        """
        let calendar = try ICalendar.parse(text)
        #expect(calendar.events.count == 1)
        let e = try #require(calendar.events.first)
        #expect(e.uid == "abc")
        #expect(e.start == .zoned(LocalDateTime(year: 2025, month: 3, day: 1, hour: 9, minute: 30), tzid: "Europe/Berlin"))
        #expect(e.extraProperties["X-CUSTOM-THING"] == "kept")
    }

    @Test func eventWithoutDTSTARTIsAWarningWithItsLine() throws {
        let text = """
        BEGIN:VCALENDAR
        BEGIN:VEVENT
        UID:good-1
        DTSTART:20250301T093000Z
        END:VEVENT
        BEGIN:VEVENT
        UID:bad
        SUMMARY:No start
        END:VEVENT
        BEGIN:VEVENT
        UID:bad-date
        DTSTART:2025-03-01
        END:VEVENT
        BEGIN:VEVENT
        UID:good-2
        DTSTART;VALUE=DATE:20250302
        END:VEVENT
        END:VCALENDAR
        """
        let calendar = try ICalendar.parse(text)
        #expect(calendar.events.map(\.uid) == ["good-1", "good-2"])
        #expect(calendar.warnings.count == 2)
        #expect(calendar.warnings.first?.line == 6)
        #expect(calendar.warnings.first?.message.contains("DTSTART") == true)
        #expect(calendar.warnings.last?.line == 12)
    }

    @Test func structuralErrorsThrowWithLine() {
        do {
            _ = try ICalendar.parse("BEGIN:VCALENDAR\nBEGIN:VEVENT\nDTSTART:20250101\nEND:VTODO\nEND:VCALENDAR")
            Issue.record("expected an error")
        } catch {
            #expect(error.line == 4)
            #expect(error.description.hasPrefix("line 4: END:VTODO"))
        }
        #expect(throws: ICalendarError.self) { try ICalendar.parse("") }
        #expect(throws: ICalendarError.self) { try ICalendar.parse("hello, world") }
        #expect(throws: ICalendarError.self) { try ICalendar.parse("SUMMARY:no component\nDTSTART:20250101") }
    }

    @Test func malformedLineInsideAnEventIsAWarning() throws {
        let text = "BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:a\nDTSTART:20250101T100000Z\nthis line is garbage\nEND:VEVENT\nEND:VCALENDAR"
        let calendar = try ICalendar.parse(text)
        #expect(calendar.events.map(\.uid) == ["a"])
        #expect(calendar.warnings.map(\.line) == [5])
    }

    @Test func truncatedInputKeepsCompleteEvents() throws {
        let calendar = try ICalendar.parse("BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:a\nDTSTART:20250101\nEND:VEVENT\nBEGIN:VEVENT\nUID:b\nDTST")
        #expect(calendar.events.map(\.uid) == ["a"])
        #expect(!calendar.warnings.isEmpty)
    }

    @Test func eventFields() throws {
        let text = """
        BEGIN:VCALENDAR
        X-WR-CALNAME:Team
        METHOD:request
        BEGIN:VEVENT
        UID:040000008200E00074C5B7101A82E008
        SEQUENCE:3
        DTSTAMP:20250101T080000Z
        LAST-MODIFIED:20250102T090000Z
        DTSTART;TZID=W. Europe Standard Time:20250301T093000
        DURATION:PT45M
        STATUS:tentative
        SUMMARY:Planning
        LOCATION:Room 1
        CATEGORIES:Work,Planning
        TRANSP:TRANSPARENT
        RRULE:FREQ=WEEKLY;COUNT=3
        EXDATE;TZID=W. Europe Standard Time:20250308T093000,20250315T093000
        RDATE;VALUE=PERIOD:20250320T100000Z/PT1H
        END:VEVENT
        END:VCALENDAR
        """
        let calendar = try ICalendar.parse(text)
        #expect(calendar.name == "Team")
        #expect(calendar.method == "REQUEST")
        let e = try #require(calendar.events.first)
        #expect(e.sequence == 3)
        #expect(e.status == .tentative)
        #expect(e.duration == ICalDuration(minutes: 45))
        #expect(e.categories == ["Work", "Planning"])
        #expect(e.isTransparent)
        #expect(e.rrule?.count == 3)
        #expect(e.exdates.count == 2)
        #expect(e.rdates.first?.duration == ICalDuration(hours: 1))
        #expect(e.dtstamp == Date(timeIntervalSince1970: 1_735_718_400))
        #expect(e.lastModified == Date(timeIntervalSince1970: 1_735_808_400))
        #expect(!e.isAllDay)
        #expect(e.isRecurring)
    }

    @Test func onlineMeetingPrecedence() throws {
        func link(_ lines: String) throws -> String? {
            let text = "BEGIN:VEVENT\nUID:x\nDTSTART:20250101T100000Z\n\(lines)\nEND:VEVENT"
            return try ICalendar.parse(text).events.first?.onlineMeetingURL?.absoluteString
        }
        #expect(try link("X-MICROSOFT-SKYPETEAMSMEETINGURL:https://teams.microsoft.com/l/meetup-join/1\nX-GOOGLE-CONFERENCE:https://meet.google.com/abc-defg-hij")
                == "https://teams.microsoft.com/l/meetup-join/1")
        #expect(try link("X-GOOGLE-CONFERENCE:https://meet.google.com/abc-defg-hij\nURL:https://zoom.us/j/1") == "https://meet.google.com/abc-defg-hij")
        #expect(try link("CONFERENCE;VALUE=URI;FEATURE=VIDEO:https://example.webex.com/meet/x\nURL:https://zoom.us/j/1")
                == "https://example.webex.com/meet/x")
        #expect(try link("URL:https://acme.zoom.us/j/123\nLOCATION:https://meet.google.com/xyz") == "https://acme.zoom.us/j/123")
        #expect(try link("URL:https://intranet.example.com/e/1\nLOCATION:Room 4; https://meet.google.com/xyz-abcd-efg.")
                == "https://meet.google.com/xyz-abcd-efg")
        #expect(try link(#"DESCRIPTION:Join: <https://teams.microsoft.com/l/meetup-join/19%3ameeting>\nThanks"#)
                == "https://teams.microsoft.com/l/meetup-join/19%3ameeting")
        #expect(try link("URL:https://intranet.example.com/e/1") == "https://intranet.example.com/e/1")
        #expect(try link("LOCATION:Room 4") == nil)
    }
}
