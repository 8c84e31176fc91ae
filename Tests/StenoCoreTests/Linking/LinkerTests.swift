import Foundation
import StenoCore
import Testing

/// Builds candidates and recordings on a fixed day, in minutes from 2026-11-20 00:00 UTC.
enum LinkFixtures {
    static let day = Date(timeIntervalSince1970: 1_795_132_800)  // 2026-11-20T00:00:00Z

    static func at(_ hour: Double, _ minute: Double = 0) -> Date { day.addingTimeInterval(hour * 3600 + minute * 60) }

    static func event(
        _ id: Int64, _ title: String, from start: Date, minutes: Double, relation: LinkCandidate.OwnerRelation = .attendee(.accepted),
        status: EventStatus = .confirmed, allDay: Bool = false, url: String? = nil, identity: String? = nil, uid: String? = nil
    ) -> LinkCandidate {
        LinkCandidate(
            meetingID: id, eventID: id, eventRemoteID: "event-\(id)", iCalUID: uid ?? identity ?? "uid-\(id)", seriesUID: uid,
            meetingIdentity: identity ?? "uid-\(id)", title: title, start: start, end: start.addingTimeInterval(minutes * 60),
            isAllDay: allDay, status: status, onlineMeetingURL: url, ownerRelation: relation)
    }

    static func recording(at start: Date, minutes: Double, title: String? = nil, iCalUID: String? = nil, eventID: String? = nil, url: String? = nil)
        -> RecordingLinkFacts
    {
        RecordingLinkFacts(
            recordingID: 1, recordedAt: start, duration: minutes * 60, title: title, iCalUIDHint: iCalUID, eventIDHint: eventID,
            onlineMeetingURL: url)
    }
}

@Suite("Linker: which meeting a recording captured")
struct LinkerTests {
    typealias F = LinkFixtures

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var recording: RecordingLinkFacts
        var candidates: [LinkCandidate]
        var identity: [LinkCandidate] = []
        var state: LinkState
        var chosen: Int64?
        var method: LinkMethod?
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "a recording inside one meeting", recording: F.recording(at: F.at(10, 2), minutes: 55),
             candidates: [F.event(1, "Planning", from: F.at(10), minutes: 60)], state: .linked, chosen: 1, method: .overlap),
        Case(name: "back-to-back meetings: the one the recording sits in",
             recording: F.recording(at: F.at(10, 1), minutes: 57),
             candidates: [F.event(1, "Earlier", from: F.at(9), minutes: 60), F.event(2, "Later", from: F.at(10), minutes: 60),
                          F.event(3, "After", from: F.at(11), minutes: 30)],
             state: .linked, chosen: 2, method: .overlap),
        Case(name: "a recording spanning two meetings equally is ambiguous",
             recording: F.recording(at: F.at(9, 30), minutes: 60),
             candidates: [F.event(1, "First", from: F.at(9), minutes: 60), F.event(2, "Second", from: F.at(10), minutes: 60)],
             state: .ambiguous, chosen: nil, method: .overlap),
        Case(name: "a recording spanning two meetings mostly in the second",
             recording: F.recording(at: F.at(9, 50), minutes: 60),
             candidates: [F.event(1, "First", from: F.at(9), minutes: 60), F.event(2, "Second", from: F.at(10), minutes: 60)],
             state: .linked, chosen: 2, method: .overlap),
        Case(name: "a declined meeting overlapping an accepted one",
             recording: F.recording(at: F.at(14), minutes: 30),
             candidates: [F.event(1, "Declined", from: F.at(14), minutes: 30, relation: .attendee(.declined)),
                          F.event(2, "Accepted", from: F.at(14), minutes: 60, relation: .attendee(.accepted))],
             state: .linked, chosen: 2, method: .overlap),
        Case(name: "an all-day event is never linked by time",
             recording: F.recording(at: F.at(11), minutes: 30),
             candidates: [F.event(1, "Offsite", from: F.at(0), minutes: 1440, allDay: true)], state: .unlinked),
        Case(name: "a cancelled event is never linked by time",
             recording: F.recording(at: F.at(15), minutes: 30),
             candidates: [F.event(1, "Vendor sync", from: F.at(15), minutes: 30, status: .cancelled)], state: .unlinked),
        Case(name: "a cancelled event beside a live one: the live one",
             recording: F.recording(at: F.at(15), minutes: 30),
             candidates: [F.event(1, "Cancelled", from: F.at(15), minutes: 30, status: .cancelled),
                          F.event(2, "Live", from: F.at(15), minutes: 45)],
             state: .linked, chosen: 2, method: .overlap),
        Case(name: "the moved occurrence of a series, not its original slot",
             recording: F.recording(at: F.at(10, 1), minutes: 14),
             candidates: [F.event(1, "Standup (moved)", from: F.at(10), minutes: 15, identity: "standup#20261120T083000Z", uid: "standup"),
                          F.event(2, "Standup", from: F.at(8, 30), minutes: 15, identity: "standup#20261119T083000Z", uid: "standup")],
             state: .linked, chosen: 1, method: .overlap),
        Case(name: "a brief overlap at the edge stays below the threshold",
             recording: F.recording(at: F.at(11, 55), minutes: 60),
             candidates: [F.event(1, "Lunch talk", from: F.at(11), minutes: 60, relation: .attendee(.none))], state: .unlinked),
        Case(name: "a very long block loses to a real meeting inside it",
             recording: F.recording(at: F.at(13), minutes: 30),
             candidates: [F.event(1, "Focus time", from: F.at(9), minutes: 480, relation: .ownCalendar),
                          F.event(2, "Call", from: F.at(13), minutes: 30)],
             state: .linked, chosen: 2, method: .overlap),
        Case(name: "the sidecar's online-meeting URL settles two parallel meetings",
             recording: F.recording(at: F.at(16), minutes: 30, url: "https://meet.example.com/abc-defg?pwd=1"),
             candidates: [F.event(1, "Sales", from: F.at(16), minutes: 30, url: "https://meet.example.com/zzz"),
                          F.event(2, "Design", from: F.at(16), minutes: 30, url: "https://meet.example.com/abc-defg")],
             state: .linked, chosen: 2, method: .overlap),
        Case(name: "the sidecar's title settles two parallel meetings",
             recording: F.recording(at: F.at(16), minutes: 30, title: "Design review"),
             candidates: [F.event(1, "Sales pipeline", from: F.at(16), minutes: 30),
                          F.event(2, "Design review: inbox", from: F.at(16), minutes: 30)],
             state: .linked, chosen: 2, method: .overlap),
        Case(name: "no event near the recording", recording: F.recording(at: F.at(20), minutes: 10),
             candidates: [], state: .unlinked),
        Case(name: "an identity hint whose event is not mirrored yet waits",
             recording: F.recording(at: F.at(10), minutes: 30, iCalUID: "040000008200E00074C5B7101A82E008"),
             candidates: [F.event(1, "Other", from: F.at(10), minutes: 30)], state: .pending),
        Case(name: "an identity hint links even far from the recording's time, to an all-day or cancelled event",
             recording: F.recording(at: F.at(10), minutes: 30, iCalUID: "offsite"),
             candidates: [F.event(1, "Other", from: F.at(10), minutes: 30)],
             identity: [F.event(2, "Offsite", from: F.at(-48), minutes: 2880, status: .cancelled, allDay: true, identity: "offsite")],
             state: .linked, chosen: 2, method: .iCalUID),
        Case(name: "a series UID hint picks the occurrence the recording overlaps",
             recording: F.recording(at: F.at(8, 31), minutes: 14, iCalUID: "standup"),
             candidates: [],
             identity: [F.event(1, "Standup", from: F.at(-15, -30), minutes: 15, identity: "standup#1", uid: "standup"),
                        F.event(2, "Standup", from: F.at(8, 30), minutes: 15, identity: "standup#2", uid: "standup"),
                        F.event(3, "Standup", from: F.at(32, 30), minutes: 15, identity: "standup#3", uid: "standup")],
             state: .linked, chosen: 2, method: .iCalUID),
        Case(name: "an event-id hint", recording: F.recording(at: F.at(10), minutes: 30, eventID: "event-7"),
             candidates: [], identity: [F.event(7, "Graph event", from: F.at(12), minutes: 30)], state: .linked, chosen: 7, method: .eventID),
    ]

    @Test(arguments: cases)
    func decides(_ testCase: Case) {
        let decision = Linker.decide(testCase.recording, identityMatches: testCase.identity, timeCandidates: testCase.candidates)
        #expect(decision.state == testCase.state, "\(decision.reason)")
        #expect(decision.chosen?.candidate.eventID == testCase.chosen, "\(decision.reason)")
        if let method = testCase.method { #expect(decision.method == method) }
        #expect(!decision.reason.isEmpty)
    }

    /// A member's calendar speaks only for that member: an event in bob's calendar naming alice
    /// as organizer, at the time of her recording, is never a candidate for it, by time or by
    /// the UID her sidecar names.
    @Test func anEventThatDoesNotSpeakForTheOwnerIsNeverLinked() {
        let planted = F.event(7, "PLANTED", from: F.at(10), minutes: 30, relation: .unrelated, identity: "customer-call")
        let real = F.event(8, "Customer call", from: F.at(10, 5), minutes: 60, relation: .ownCalendar)
        let byTime = Linker.decide(F.recording(at: F.at(10), minutes: 30), identityMatches: [], timeCandidates: [planted, real])
        #expect(byTime.state == .linked && byTime.chosen?.candidate.eventID == 8, "\(byTime.reason)")
        #expect(byTime.candidates.first { $0.candidate.eventID == 7 }?.excludedBecause == LinkScorer.notTheOwnersEvent)
        let alone = Linker.decide(F.recording(at: F.at(10), minutes: 30), identityMatches: [], timeCandidates: [planted])
        #expect(alone.state == .unlinked)
        let byUID = Linker.decide(
            F.recording(at: F.at(10), minutes: 30, iCalUID: "customer-call"), identityMatches: [planted], timeCandidates: [planted])
        #expect(byUID.state == .pending && byUID.chosen == nil, "\(byUID.reason)")
    }

    @Test func anIdentityLinkResolvesWhenItsEventArrives() {
        let recording = F.recording(at: F.at(10), minutes: 30, iCalUID: "late-event")
        #expect(Linker.decide(recording, identityMatches: [], timeCandidates: []).state == .pending)
        let arrived = F.event(5, "Arrived", from: F.at(10), minutes: 30, identity: "late-event")
        let decision = Linker.decide(recording, identityMatches: [arrived], timeCandidates: [arrived])
        #expect(decision.state == .linked && decision.method == .iCalUID && decision.chosen?.candidate.meetingID == 5)
    }

    @Test func acrossTheEndOfDaylightSavingTheLocalStartStays() throws {
        // 09:30 in Berlin is 07:30 UTC before 2026-10-25 and 08:30 UTC after.
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = berlin
        func standup(_ day: Int) throws -> Date {
            try #require(calendar.date(from: DateComponents(year: 2026, month: 10, day: day, hour: 9, minute: 30)))
        }
        let before = F.event(1, "Standup", from: try standup(23), minutes: 15)
        let after = F.event(2, "Standup", from: try standup(26), minutes: 15)
        #expect(after.start.timeIntervalSince(before.start) == 3 * 86_400 + 3600)
        let onMonday = F.recording(at: after.start.addingTimeInterval(60), minutes: 14)
        #expect(Linker.decide(onMonday, identityMatches: [], timeCandidates: [before, after]).chosen?.candidate.eventID == 2)
        // A recording at 08:31 UTC on the Friday (10:31 local) is an hour after that standup ended.
        let lateFriday = F.recording(at: before.start.addingTimeInterval(3600 + 60), minutes: 14)
        #expect(Linker.decide(lateFriday, identityMatches: [], timeCandidates: [before]).state == .unlinked)
    }

    @Test func theExplanationShowsEveryTermAndSumsToTheScore() {
        let recording = F.recording(at: F.at(10, 5), minutes: 50, title: "Planning")
        let decision = Linker.decide(
            recording, identityMatches: [],
            timeCandidates: [F.event(1, "Planning", from: F.at(10), minutes: 60, relation: .organizer)])
        let chosen = decision.chosen
        #expect(chosen?.terms.map(\.name) == ["overlap", "start", "role", "title"])
        #expect(abs((chosen?.score ?? 0) - (0.5 + 0.2 * (25.0 / 30) + 0.15 + 0.2)) < 1e-9)
        #expect(chosen?.terms.first?.detail == "50 min of the recording's 50 min fall inside the event")
        #expect(chosen?.terms[1].detail == "the recording starts 5 min after the event")
    }

    @Test func aShortRecordingIsExplainedInSecondsNotZeroMinutes() {
        let memo = RecordingLinkFacts(recordingID: 1, recordedAt: F.at(10, 0.5), duration: 3.5)
        let scored = LinkScorer.score(F.event(1, "Planning", from: F.at(10), minutes: 60), for: memo, policy: LinkPolicy())
        #expect(scored.terms.map(\.detail).prefix(2) == ["3.5 s of the recording's 3.5 s fall inside the event", "the recording starts 30 s after the event"])
    }

    @Test func aRecordingShorterThanASecondInsideTheEventOverlapsItFully() {
        let short = RecordingLinkFacts(recordingID: 1, recordedAt: F.at(10, 5), duration: 0.3)
        let scored = LinkScorer.score(F.event(1, "Planning", from: F.at(10), minutes: 60), for: short, policy: LinkPolicy())
        #expect(abs((scored.terms.first { $0.name == "overlap" }?.points ?? 0) - 0.5) < 1e-6)
        let unknownLength = RecordingLinkFacts(recordingID: 1, recordedAt: F.at(10, 5), duration: 0)
        #expect(LinkScorer.score(F.event(1, "Planning", from: F.at(10), minutes: 60), for: unknownLength, policy: LinkPolicy())
            .terms.first { $0.name == "overlap" }?.points == 0.5)
        let outside = RecordingLinkFacts(recordingID: 1, recordedAt: F.at(11, 5), duration: 0)
        #expect(LinkScorer.score(F.event(1, "Planning", from: F.at(10), minutes: 60), for: outside, policy: LinkPolicy())
            .terms.first { $0.name == "overlap" }?.points == 0)
    }
}
