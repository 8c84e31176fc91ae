import Foundation
import StenoCore
import StenoTesting
import Testing

@testable import StenoCalendar

/// Graph event JSON → mirror rows, and the date-time reader, including random and truncated input.
@Suite("Graph event mapping")
struct GraphMappingTests {
    func event(_ json: String) throws -> GraphEventPayload {
        try GraphPageReader.event(Data(json.utf8))
    }

    @Test("times in a Windows zone (Graph ignoring the UTC preference) are read through the CLDR table")
    func windowsZone() throws {
        let payload = try event("""
            {"id":"e1","iCalUId":"i1","uid":"u1","type":"singleInstance","subject":"Planning",
             "start":{"dateTime":"2026-07-01T09:30:00.0000000","timeZone":"Pacific Standard Time"},
             "end":{"dateTime":"2026-07-01T10:00:00.0000000","timeZone":"Pacific Standard Time"},
             "originalStartTimeZone":"Pacific Standard Time","isCancelled":true,
             "organizer":{"emailAddress":{"name":"Ann","address":"Ann@Contoso.com"}},
             "attendees":[{"type":"optional","status":{"response":"declined"},"emailAddress":{"address":"x@contoso.com"}},
                          {"type":"required","status":{"response":"accepted"},"emailAddress":{"address":"ann@contoso.com"}},
                          {"type":"required","status":{"response":"none"},"emailAddress":{"address":""}}],
             "location":{"displayName":""},"onlineMeetingUrl":"https://zoom.us/j/1","webLink":"https://outlook.office365.com/owa/?itemid=e1"}
            """)
        let row = try payload.mirrored()
        // 09:30 PDT is 16:30 UTC.
        #expect(row.start == Date(timeIntervalSince1970: 1_782_923_400) && row.end.timeIntervalSince(row.start) == 1800)
        #expect(row.timeZone == "America/Los_Angeles" && row.status == .cancelled && row.location == nil)
        #expect(row.meetingIdentity == "u1" && row.iCalUID == "i1" && row.recurrenceID == nil)
        #expect(row.attendees.map(\.email) == ["ann@contoso.com", "x@contoso.com"])
        #expect(row.attendees[0].role == .organizer && row.attendees[0].response == .accepted)
        #expect(row.attendees[1].role == .optional && row.attendees[1].response == .declined)
        #expect(row.onlineMeetingURL == "https://zoom.us/j/1" && row.webLink?.hasPrefix("https://outlook") == true)
    }

    @Test("an all-day event keeps its dates; an exception keeps its original start as recurrence id")
    func allDayAndException() throws {
        let allDay = try event("""
            {"id":"a","uid":"ua","isAllDay":true,"start":{"dateTime":"2026-12-24T00:00:00.0000000","timeZone":"UTC"},
             "end":{"dateTime":"2026-12-26T00:00:00.0000000","timeZone":"UTC"},"originalStartTimeZone":"W. Europe Standard Time"}
            """).mirrored()
        #expect(allDay.isAllDay && allDay.allDayStart == "2026-12-24" && allDay.allDayEnd == "2026-12-26")
        #expect(allDay.start == Date(timeIntervalSince1970: 1_798_066_800))  // midnight in Berlin
        let exception = try event("""
            {"id":"x","uid":"useries","iCalUId":"iocc","type":"exception","seriesMasterId":"m",
             "originalStart":"2026-11-02T08:00:00Z","start":{"dateTime":"2026-11-02T10:00:00.0000000","timeZone":"UTC"},
             "end":{"dateTime":"2026-11-02T11:00:00.0000000","timeZone":"UTC"}}
            """).mirrored()
        #expect(exception.recurrenceID == Date(timeIntervalSince1970: 1_793_606_400))
        #expect(exception.meetingIdentity == "useries#20261102T080000Z" && exception.seriesUID == "useries" && exception.iCalUID == "iocc")
    }

    @Test("DateTimeOffset texts with offsets and fractions")
    func offsets() {
        #expect(GraphDateTime.instant("2026-11-02T09:00:00+01:00") == Date(timeIntervalSince1970: 1_793_606_400))
        #expect(GraphDateTime.instant("2026-11-02T08:00:00.1234567Z") == Date(timeIntervalSince1970: 1_793_606_400))
        #expect(GraphDateTime.instant("2026-11-02T08:00:00") == Date(timeIntervalSince1970: 1_793_606_400))
        #expect(GraphDateTime.instant("2026-13-02T08:00:00Z") == nil)
        #expect(GraphDateTime.local("2026-02-30T00:00:00") == nil)
        #expect(GraphDateTime.instant("2026-11-02T08:00:00X") == nil)
    }

    @Test("attendee types and answers are read whatever their case; look-alikes are not")
    func enumerationCase() {
        #expect(GraphEventPayload.role("Optional") == .optional && GraphEventPayload.role("RESOURCE") == .resource)
        #expect(GraphEventPayload.role("optıonal") == .required && GraphEventPayload.role(nil) == .required)
        #expect(GraphEventPayload.response("tentativelyAccepted") == .tentative && GraphEventPayload.response("Organizer") == .accepted)
        #expect(GraphEventPayload.response("DECLINED") == .declined && GraphEventPayload.response("notResponded") == .none)
        #expect(GraphEventPayload.response("accepte") == .none && GraphEventPayload.response("acceptedd") == .none)
        #expect("VEVENT"[...].equalsIgnoringASCIICase("vevent") && !"V@EVENT".equalsIgnoringASCIICase("v`event"))
    }

    @Test("an attendee list keeps the organizer first and every address once, short or long")
    func attendeeList() {
        let organizer = Attendee(email: "ann@x.com", name: "Ann", role: .organizer, response: .accepted)
        for count in [3, 16, 17, 40] {
            let invited = (0..<count).map { Attendee(email: "p\($0 % (count - 1))@x.com", response: .accepted) }
                + [Attendee(email: "ANN@x.com", response: .tentative)]
            let list = Attendee.mirroredList(organizer: organizer, attendees: invited)
            #expect(list.map(\.email) == ["ann@x.com"] + (0..<(count - 1)).map { "p\($0)@x.com" })
            #expect(list[0].role == .organizer && list[0].response == .tentative)
        }
    }

    @Test("random and truncated input never crashes the readers", arguments: 0..<4)
    func fuzz(seed: UInt64) throws {
        var generator = SeededRandom(seed: seed)
        let alphabet = Array("0123456789-:T.Z+ zabc\"{}[],")
        for _ in 0..<2000 {
            let text = String((0..<Int.random(in: 0...40, using: &generator)).map { _ in alphabet.randomElement(using: &generator) ?? "0" })
            _ = GraphDateTime.local(text)
            _ = GraphDateTime.instant(text)
        }
        let page = """
            {"value":[{"id":"e1","uid":"u","start":{"dateTime":"2026-07-01T09:30:00.0000000","timeZone":"UTC"},
            "end":{"dateTime":"2026-07-01T10:00:00.0000000","timeZone":"Nowhere"}},{"id":"e2","@removed":{"reason":"deleted"}}],
            "@odata.deltaLink":"http://127.0.0.1/x?$deltatoken=1"}
            """
        let bytes = Array(page.utf8)
        for cut in 0...bytes.count {
            var slice = Array(bytes[0..<cut])
            if cut < bytes.count, Bool.random(using: &generator) { slice.append(UInt8.random(in: 0...255, using: &generator)) }
            if let decoded = try? GraphPageReader.page(Data(slice)) {
                for payload in decoded.value { _ = try? payload.mirrored() }
            }
        }
        let whole = try GraphPageReader.page(Data(bytes))
        #expect(whole.value.count == 2 && whole.deltaLink != nil)
        #expect(throws: GraphMappingError.self) { try whole.value[0].mirrored() }
    }
}
