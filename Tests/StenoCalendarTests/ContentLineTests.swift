import Foundation
import StenoCalendar
import Testing

@Suite("Content lines: unfolding, escaping, parameters")
struct ContentLineTests {
    private func event(_ lines: String, separator: String = "\r\n") throws -> ICalEvent {
        let text = ["BEGIN:VCALENDAR", "BEGIN:VEVENT", "UID:x", "DTSTART:20250101T100000Z", lines, "END:VEVENT", "END:VCALENDAR"]
            .joined(separator: separator)
        let calendar = try ICalendar.parse(text)
        #expect(calendar.warnings.isEmpty, "\(calendar.warnings)")
        return try #require(calendar.events.first)
    }

    @Test func unfoldsSpaceAndTabContinuations() throws {
        let e = try event("SUMMARY:Quarterly \r\n  planning\r\n\tmeeting")
        #expect(e.summary == "Quarterly  planningmeeting")
    }

    @Test func unfoldsWithBareLF() throws {
        let e = try event("DESCRIPTION:line one\n continued", separator: "\n")
        #expect(e.description == "line onecontinued")
    }

    @Test func foldInsideMultiByteCharacterIsRepaired() throws {
        // "Zoë" with the fold between the two bytes of "ë" (C3 AB), as a 75-octet folder does.
        var bytes = Array("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:x\r\nDTSTART:20250101T100000Z\r\nSUMMARY:Zo".utf8)
        bytes += [0xC3, 0x0D, 0x0A, 0x20, 0xAB]
        bytes += Array(" – café\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n".utf8)
        let calendar = try ICalendar.parse(data: Data(bytes))
        #expect(calendar.events.first?.summary == "Zoë – café")
    }

    @Test func unescapesText() throws {
        let e = try event(#"SUMMARY:a\\b\;c\,d\ne\Nf"#)
        #expect(e.summary == "a\\b;c,d\ne\nf")
    }

    @Test func quotedParametersMayContainColonAndSemicolon() throws {
        let e = try event(#"ATTENDEE;CN="Doe; John: PhD";ROLE=OPT-PARTICIPANT;PARTSTAT=ACCEPTED;RSVP=TRUE:mailto:John.Doe@Example.COM"#)
        let a = try #require(e.attendees.first)
        #expect(a.name == "Doe; John: PhD")
        #expect(a.email == "john.doe@example.com")
        #expect(a.role == .optionalParticipant)
        #expect(a.partstat == .accepted)
        #expect(a.rsvp)
    }

    @Test func nonASCIICommonNames() throws {
        let e = try event("ORGANIZER;CN=Jürgen Müller:MAILTO:juergen@example.de\r\nATTENDEE;CN=\"山田 太郎\";CUTYPE=ROOM;PARTSTAT=DECLINED:mailto:room@example.jp")
        #expect(e.organizer?.name == "Jürgen Müller")
        #expect(e.organizer?.email == "juergen@example.de")
        #expect(e.attendees.first?.name == "山田 太郎")
        #expect(e.attendees.first?.cutype == .room)
        #expect(e.attendees.first?.partstat == .declined)
    }

    @Test func attendeeDefaultsAndCaretEscapes() throws {
        let e = try event("ATTENDEE;CN=Ann ^'The^' Lee;CUTYPE=X-ROBOT:mailto:ann@example.com")
        let a = try #require(e.attendees.first)
        #expect(a.name == "Ann \"The\" Lee")
        #expect(a.role == .requiredParticipant)
        #expect(a.partstat == .needsAction)
        #expect(a.cutype == .unknown)
        #expect(!a.rsvp)
    }

    @Test func parameterListsAndLowercaseNames() throws {
        let line = try ContentLine.parse("attendee;member=\"mailto:a@x\",\"mailto:b@x\";cn=Bob:mailto:bob@x", line: 7)
        #expect(line.name == "ATTENDEE")
        #expect(line.parameters["MEMBER"] == ["mailto:a@x", "mailto:b@x"])
        #expect(line.parameter("cn") == "Bob")
        #expect(line.value == "mailto:bob@x")
        #expect(line.line == 7)
    }

    @Test func malformedContentLinesReportTheirLine() {
        #expect(throws: ICalendarError.self) { try ContentLine.parse("NO COLON HERE", line: 3) }
        do {
            _ = try ContentLine.parse("X;CN=\"unterminated:value", line: 9)
            Issue.record("expected an error")
        } catch {
            #expect(error.line == 9)
            #expect(error.message.contains("unterminated"))
        }
    }
}
