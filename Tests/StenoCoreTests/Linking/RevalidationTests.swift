import Foundation
import StenoCore
import Testing

@Suite("Revalidation decisions")
struct RevalidationTests {
    typealias F = LinkFixtures

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var link: ExistingLink
        var current: LinkCandidate?
        var sameMeeting: [LinkCandidate] = []
        var sameTitle: [LinkCandidate] = []
        /// Live candidates around the recording, for the fresh decision.
        var around: [LinkCandidate] = []
        var action: RevalidationAction
        var state: LinkState
        var target: Int64?
        var testDescription: String { name }
    }

    static let recording = F.recording(at: F.at(10, 2), minutes: 50)
    static let planning = F.event(1, "Planning", from: F.at(10), minutes: 60)
    static func linked(method: LinkMethod = .overlap, manual: Bool = false, state: LinkState = .linked) -> ExistingLink {
        ExistingLink(
            recordingID: 1, state: state, method: manual ? .manual : method, isManual: manual, meetingID: 1, eventID: 1,
            cachedTitle: "Planning", cachedStart: F.at(10), cachedEnd: F.at(11))
    }

    static let cases: [Case] = {
        var renamed = planning
        renamed.title = "Planning (Q1)"
        let movedLater = F.event(1, "Planning", from: F.at(13), minutes: 60)
        let recreated = F.event(9, "Planning", from: F.at(10), minutes: 60, identity: "uid-1")
        let twin = F.event(8, "Planning", from: F.at(10, 3), minutes: 60)
        let other = F.event(4, "Customer call", from: F.at(10), minutes: 55)
        var cancelled = planning
        cancelled.status = .cancelled
        // A member's planted copy: in their calendar, naming the owner; it speaks only for them.
        let planted = F.event(7, "PLANTED", from: F.at(10, 1), minutes: 55, relation: .unrelated)
        var plantedLinked = linked()
        plantedLinked.meetingID = 7
        plantedLinked.eventID = 7
        return [
            Case(name: "linked to a copy that does not speak for the owner: relinked to the owner's own", link: plantedLinked,
                 current: planted, around: [planted, planning], action: .relinked, state: .linked, target: 1),
            Case(name: "a planted copy scoring higher never takes a link", link: linked(), current: planning,
                 around: [planning, planted], action: .stillValid, state: .linked, target: 1),
            Case(name: "the event gone, a planted copy of its meeting does not replace it", link: linked(), current: nil,
                 sameMeeting: [F.event(7, "Planning", from: F.at(10), minutes: 60, relation: .unrelated, identity: "uid-1")],
                 action: .orphaned, state: .orphaned, target: nil),
            Case(name: "unchanged event", link: linked(), current: planning, around: [planning], action: .stillValid, state: .linked, target: 1),
            Case(name: "renamed event: cache refreshed", link: linked(), current: renamed, around: [renamed],
                 action: .refreshed, state: .linked, target: 1),
            Case(name: "moved by 3 h with another meeting in its old slot: relinked", link: linked(), current: movedLater,
                 around: [other], action: .relinked, state: .linked, target: 4),
            Case(name: "moved by 3 h, nothing else there: unlinked", link: linked(), current: movedLater, around: [],
                 action: .unlinked, state: .unlinked, target: nil),
            Case(name: "cancelled: an automatic link lets go", link: linked(), current: cancelled, around: [cancelled],
                 action: .unlinked, state: .unlinked, target: nil),
            Case(name: "an identity link survives a move", link: linked(method: .iCalUID), current: movedLater, around: [],
                 action: .refreshed, state: .linked, target: 1),
            Case(name: "a manual link survives a move", link: linked(manual: true), current: movedLater, around: [other],
                 action: .refreshed, state: .linked, target: 1),
            Case(name: "deleted and created again under a new id: relinked to its meeting", link: linked(), current: nil,
                 sameMeeting: [recreated], around: [recreated], action: .relinked, state: .linked, target: 9),
            Case(name: "deleted; the same title 3 min later: relinked", link: linked(), current: nil, sameTitle: [twin],
                 around: [twin], action: .relinked, state: .linked, target: 8),
            Case(name: "deleted; the same title 20 min later is too far: orphaned", link: linked(), current: nil,
                 sameTitle: [F.event(8, "Planning", from: F.at(10, 20), minutes: 60)], action: .orphaned, state: .orphaned, target: nil),
            Case(name: "deleted for good: orphaned", link: linked(), current: nil, action: .orphaned, state: .orphaned, target: nil),
            Case(name: "still gone the next night: unchanged orphan", link: linked(state: .orphaned), current: nil,
                 action: .unchangedOrphan, state: .orphaned, target: nil),
            Case(name: "an orphan whose meeting reappears: relinked", link: linked(state: .orphaned), current: nil,
                 sameMeeting: [recreated], action: .relinked, state: .linked, target: 9),
            Case(name: "a manual link whose event is deleted: orphaned, still manual", link: linked(manual: true), current: nil,
                 around: [other], action: .orphaned, state: .orphaned, target: nil),
            Case(name: "a person's unlink is left alone",
                 link: ExistingLink(recordingID: 1, state: .unlinked, method: .manual, isManual: true), current: nil, around: [planning],
                 action: .unchanged, state: .unlinked, target: nil),
            Case(name: "an unlinked recording whose meeting now exists: linked",
                 link: ExistingLink(recordingID: 1, state: .unlinked), current: nil, around: [planning],
                 action: .relinked, state: .linked, target: 1),
        ]
    }()

    @Test(arguments: cases)
    func decides(_ testCase: Case) {
        let fresh = Linker.decide(Self.recording, identityMatches: [], timeCandidates: testCase.around)
        let decision = Revalidator.decide(
            testCase.link, recording: Self.recording, current: testCase.current, sameMeeting: testCase.sameMeeting,
            sameTitleNearStart: testCase.sameTitle, fresh: fresh)
        #expect(decision.action == testCase.action, "\(decision.reason)")
        #expect(decision.state == testCase.state, "\(decision.reason)")
        #expect(decision.target?.eventID == testCase.target, "\(decision.reason)")
    }
}
