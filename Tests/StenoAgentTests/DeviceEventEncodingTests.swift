import Foundation
import StenoAgent
import Testing

/// The wire's local fields from EventKit's instants: days and times in the event's zone,
/// across midnight, daylight-saving changes, multi-day all-day events and odd offsets.
@Suite("DeviceEvent: local fields from instants")
struct DeviceEventEncodingTests {
    static let berlin = zone("Europe/Berlin")
    static let newYork = zone("America/New_York")

    static func zone(_ identifier: String) -> TimeZone {
        TimeZone(identifier: identifier) ?? TimeZone(secondsFromGMT: 0) ?? .current
    }

    /// An instant from ISO 8601 text (tests' own constants).
    static func instant(_ text: String) throws -> Date {
        try Date(text, strategy: .iso8601)
    }

    func timed(_ start: String, _ end: String, in zone: TimeZone) throws -> DeviceEvent {
        DeviceEvent(
            externalId: "A1", externalCalendarId: "CAL-1", start: try Self.instant(start), end: try Self.instant(end), isAllDay: false,
            timeZone: zone)
    }

    func allDay(_ start: Date, _ end: Date, in zone: TimeZone) -> DeviceEvent {
        DeviceEvent(externalId: "A1", externalCalendarId: "CAL-1", start: start, end: end, isAllDay: true, timeZone: zone)
    }

    /// Local midnight of a day in a zone.
    func midnight(_ year: Int, _ month: Int, _ day: Int, in zone: TimeZone) throws -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return try #require(calendar.date(from: DateComponents(year: year, month: month, day: day)))
    }

    @Test func aTimedEventOnTheDayClocksGoForwardKeepsItsLocalTimes() throws {
        // Berlin, 29 March 2026: 02:00 CET becomes 03:00 CEST. 01:30 CET to 03:30 CEST is one hour.
        let event = try timed("2026-03-29T00:30:00Z", "2026-03-29T01:30:00Z", in: Self.berlin)
        #expect(event.date == "2026-03-29")
        #expect(event.startTime == "01:30")
        #expect(event.endTime == "03:30")
        #expect(event.endDate == nil)
        #expect(event.timeZone == "Europe/Berlin")
        let interval = try #require(event.interval())
        #expect(interval.start == (try Self.instant("2026-03-29T00:30:00Z")))
        #expect(interval.duration == 3600)
    }

    @Test func aTimedEventOnTheDayClocksGoBackSaysTheWallClock() throws {
        // Berlin, 25 October 2026: 03:00 CEST becomes 02:00 CET; 02:30 happens twice.
        let event = try timed("2026-10-25T00:30:00Z", "2026-10-25T01:30:00Z", in: Self.berlin)
        #expect(event.date == "2026-10-25")
        #expect(event.startTime == "02:30")
        #expect(event.endTime == "02:30")
        // Read back, a repeated local time is its first instance.
        #expect(event.interval()?.start == (try Self.instant("2026-10-25T00:30:00Z")))
        // New York, 8 March 2026 (02:00 EST becomes 03:00 EDT).
        let spring = try timed("2026-03-08T06:30:00Z", "2026-03-08T08:00:00Z", in: Self.newYork)
        #expect([spring.date, spring.startTime, spring.endTime] == ["2026-03-08", "01:30", "04:00"])
        #expect(spring.interval()?.duration == 5400)
    }

    @Test func aTimedEventEndingOnAnotherDayNamesItsEndDate() throws {
        let late = try timed("2026-11-26T04:00:00Z", "2026-11-26T05:30:00Z", in: Self.newYork)
        #expect([late.date, late.startTime, late.endTime, late.endDate] == ["2026-11-25", "23:00", "00:30", "2026-11-26"])
        let untilMidnight = try timed("2026-11-26T04:00:00Z", "2026-11-26T05:00:00Z", in: Self.newYork)
        #expect([untilMidnight.endTime, untilMidnight.endDate] == ["00:00", "2026-11-26"])
        let overnight = try timed("2026-11-25T20:00:00Z", "2026-11-27T08:00:00Z", in: Self.berlin)
        #expect([overnight.date, overnight.startTime, overnight.endTime, overnight.endDate] == ["2026-11-25", "21:00", "09:00", "2026-11-27"])
        #expect(overnight.interval()?.end == (try Self.instant("2026-11-27T08:00:00Z")))
    }

    @Test func anAllDayEventEndsOnItsLastDayWhicheverWayTheEndIsGiven() throws {
        let zone = Self.berlin
        let first = try midnight(2026, 12, 30, in: zone)
        let afterLast = try midnight(2027, 1, 3, in: zone)
        // EventKit ends all-day events at 23:59:59 of the last day; other sources at the next midnight.
        for end in [afterLast.addingTimeInterval(-1), afterLast] {
            let event = allDay(first, end, in: zone)
            #expect(event.isAllDay)
            #expect(event.startTime == nil && event.endTime == nil)
            #expect(event.date == "2026-12-30")
            #expect(event.endDate == "2027-01-02")
            #expect(event.interval() == DateInterval(start: first, end: afterLast))
        }
        let single = allDay(first, try midnight(2026, 12, 31, in: zone), in: zone)
        #expect(single.date == "2026-12-30" && single.endDate == nil)
        #expect(allDay(first, first, in: zone).endDate == nil)
    }

    @Test func anAllDayEventOnAShortDayIsOneDay() throws {
        // 29 March 2026 in Berlin has 23 hours.
        let day = try midnight(2026, 3, 29, in: Self.berlin)
        let next = try midnight(2026, 3, 30, in: Self.berlin)
        #expect(next.timeIntervalSince(day) == 23 * 3600)
        let event = allDay(day, next.addingTimeInterval(-1), in: Self.berlin)
        #expect(event.date == "2026-03-29" && event.endDate == nil)
        #expect(event.interval() == DateInterval(start: day, end: next))
    }

    @Test func oneInstantIsADifferentDayAndTimeInEachZone() throws {
        let cases: [(String, String, String)] = [
            ("Asia/Kolkata", "2026-11-25", "16:30"), ("Pacific/Chatham", "2026-11-26", "00:45"),
            ("Pacific/Honolulu", "2026-11-25", "01:00"), ("America/Los_Angeles", "2026-11-25", "03:00"),
        ]
        for (identifier, day, time) in cases {
            let event = try timed("2026-11-25T11:00:00Z", "2026-11-25T11:45:00Z", in: Self.zone(identifier))
            #expect(event.timeZone == identifier)
            #expect(event.date == day, "\(identifier)")
            #expect(event.startTime == time, "\(identifier)")
            #expect(event.interval()?.start == (try Self.instant("2026-11-25T11:00:00Z")), "\(identifier)")
        }
    }

    @Test func secondsAreDroppedAndTheEndNeverPrecedesTheStart() throws {
        let event = try timed("2026-11-25T09:00:59Z", "2026-11-25T08:00:00Z", in: TimeZone(secondsFromGMT: 0) ?? .current)
        #expect(event.startTime == "09:00" && event.endTime == "09:00" && event.endDate == nil)
    }

    @Test func theJSONCarriesTheProtocolsNamesAndLeavesOutWhatIsNil() throws {
        let start = try Self.instant("2026-11-25T08:30:00Z")
        let event = DeviceEvent(
            externalId: "A1", externalCalendarId: "CAL-1", start: start, end: start.addingTimeInterval(900), isAllDay: false,
            timeZone: Self.berlin, occurrenceDate: start, calendarTitle: "Work", externalUpdatedAt: Date(timeIntervalSince1970: 1_795_500_000),
            title: "Standup ☕ Köln", status: .confirmed, organizer: EventParticipant(email: "a@example.com", name: "Ann"),
            attendees: [EventAttendee(email: "r@example.com", name: "Room 1", status: "accepted", role: "required", type: "room")],
            calendarItemExternalIdentifier: "uid-1")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = String(decoding: try encoder.encode(event), as: UTF8.self)
        let expected =
            #"{"attendees":[{"email":"r@example.com","name":"Room 1","role":"required","status":"accepted","type":"room"}],"#
            + #""calendarItemExternalIdentifier":"uid-1","calendarTitle":"Work","date":"2026-11-25","endTime":"09:45","#
            + #""externalCalendarId":"CAL-1","externalId":"A1","externalUpdatedAt":1795500000000,"occurrenceDate":1795595400000,"#
            + #""organizer":{"email":"a@example.com","name":"Ann"},"startTime":"09:30","status":"confirmed","#
            + #""timeZone":"Europe\/Berlin","title":"Standup ☕ Köln"}"#
        #expect(json == expected)
        let deletion = String(decoding: try encoder.encode(DeviceEvent.deletion(externalId: "A2")), as: UTF8.self)
        #expect(deletion == #"{"deleted":true,"externalId":"A2"}"#)
        #expect(try JSONDecoder().decode(DeviceEvent.self, from: Data(json.utf8)) == event)
    }

    @Test func localFieldsThatDoNotParseGiveNoInterval() {
        let bad: [DeviceEvent] = [
            DeviceEvent(externalId: "x", date: "2026-13-01"), DeviceEvent(externalId: "x", date: "26-11-25"),
            DeviceEvent(externalId: "x", date: "2026-11-25", startTime: "25:00", endTime: "26:00"),
            DeviceEvent(externalId: "x", date: "2026-11-25", startTime: "09:00"), DeviceEvent(externalId: "x"),
        ]
        for event in bad { #expect(event.interval() == nil, "\(event)") }
    }
}
