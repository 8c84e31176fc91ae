import Foundation
import StenoCatalog
import StenoCore
import Testing

/// What linking reads and writes, on every backend (``MeetingFixture`` describes the data).
@Suite("Links in the catalog")
struct LinkStoreTests {
    let wide = DateInterval(start: MeetingFixture.at(minutes: -60), end: MeetingFixture.at(minutes: 480))

    @Test(arguments: StoreBackend.available)
    func candidatesAreTheEventsTheOwnerRelatesTo(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let store = opened.store
        let f = try await MeetingFixture.make(store)

        let alices = try await store.linkCandidates(ownerID: f.alice, window: wide)
        #expect(alices.map(\.title) == ["Quarterly Überprüfung", "Design Review", "Alice focus time", "Cancelled sync"])
        #expect(alices.map(\.ownerRelation) == [.organizer, .attendee(.tentative), .organizer, .organizer])
        #expect(alices[1].eventID == f.events["design"], "one event per meeting: the lower id of two equal relations")
        #expect(alices[3].status == .cancelled && alices[0].onlineMeetingURL == "https://meet.example/q1")
        #expect(alices[0].meetingIdentity == MeetingIdentity.iCalendar(uid: "q1", recurrenceID: nil) && alices[0].iCalUID == "q1")
        #expect(alices[0].start == MeetingFixture.t0 && alices[0].end == MeetingFixture.at(minutes: 60) && !alices[0].isAllDay)

        // Bob has no calendar: the events inviting him, in anyone's calendar.
        let bobs = try await store.linkCandidates(ownerID: f.bob, window: wide)
        #expect(bobs.map(\.title) == ["Quarterly Überprüfung", "Carol / Bob 1:1"])
        #expect(bobs.map(\.ownerRelation) == [.attendee(.accepted), .attendee(.accepted)])
        #expect(try await store.linkCandidates(ownerID: f.dave, window: wide).isEmpty)
        #expect(try await store.linkCandidates(ownerID: nil, window: wide).isEmpty, "a recording without owner relates to nothing")
        // Only events overlapping the window.
        let narrow = DateInterval(start: MeetingFixture.at(minutes: 30), end: MeetingFixture.at(minutes: 31))
        #expect(try await store.linkCandidates(ownerID: f.alice, window: narrow).map(\.meetingID) == [f.meetings["q1"]])

        // Spans: every way alice relates to an event (own calendar and organiser count twice).
        let spans = try await store.linkCandidateSpans(ownerID: f.alice, window: wide)
        #expect(spans.count == 9)
        #expect(Set(spans.map(\.eventID)) == Set(["q1", "design", "carol:design", "private", "cancelled"].compactMap { f.events[$0] }))
        #expect(try await store.linkCandidateSpans(ownerID: f.alice, window: narrow).map(\.eventID) == [f.events["q1"], f.events["q1"]])
    }

    @Test(arguments: StoreBackend.available)
    func eventsAreFoundByIdentityMeetingAndId(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let store = opened.store
        let f = try await MeetingFixture.make(store)

        let byUID = try await store.identityCandidates(iCalUID: "design", eventID: nil, ownerID: f.bob)
        #expect(byUID.map(\.meetingID) == [f.meetings["design"]] && byUID.first?.ownerRelation == .unrelated)
        let byRemoteID = try await store.identityCandidates(iCalUID: nil, eventID: "/cal/carol/one-on-one.ics", ownerID: f.bob)
        #expect(byRemoteID.map(\.eventID) == [f.events["carol:one-on-one"]] && byRemoteID.first?.ownerRelation == .attendee(.accepted))
        #expect(try await store.identityCandidates(iCalUID: "", eventID: nil, ownerID: f.bob).isEmpty)
        #expect(try await store.identityCandidates(iCalUID: "unknown", eventID: "unknown", ownerID: f.bob).isEmpty)

        let design = try #require(f.meetings["design"])
        let others = try await store.meetingEvents(meetingID: design, exceptEventID: f.events["design"], ownerID: f.carol)
        #expect(others.map(\.eventID) == [f.events["carol:design"]] && others.first?.ownerRelation == .organizer)
        #expect(try await store.meetingEvents(meetingID: design, exceptEventID: nil, ownerID: f.carol).count == 2)
        let byMeeting = try await store.meetingEvents(meetingIDs: [design, try #require(f.meetings["q1"])], ownerID: f.bob)
        #expect(byMeeting[design]?.map(\.eventID) == [f.events["design"], f.events["carol:design"]].compactMap { $0 })
        #expect(byMeeting[try #require(f.meetings["q1"])]?.first?.ownerRelation == .attendee(.accepted))

        let q1 = try #require(f.events["q1"])
        #expect(try await store.liveEvent(id: q1, ownerID: f.alice)?.ownerRelation == .organizer)
        #expect(try await store.liveEvent(id: -5, ownerID: f.alice) == nil)
        let live = try await store.liveEvents(ids: [q1, try #require(f.events["private"]), 999_999], ownerID: f.dave)
        #expect(Set(live.keys) == Set([q1, try #require(f.events["private"])]) && live[q1]?.ownerRelation == .unrelated)
    }

    @Test(arguments: StoreBackend.available)
    func factsAreReadOnlyForReadyRecordingsWithATime(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let store = opened.store
        let f = try await MeetingFixture.make(store)

        let facts = try #require(try await store.linkFacts(recordingID: f.aliceRecording))
        #expect(facts.ownerID == f.alice && facts.facts.title == "Überprüfung notes" && facts.facts.duration == 1800)
        #expect(facts.facts.recordedAt == MeetingFixture.at(minutes: 2))
        #expect(try await store.linkFacts(recordingID: f.failedRecording) == nil)
        let many = try await store.linkFacts(recordingIDs: [f.aliceRecording, f.bobRecording, f.failedRecording, 12_345])
        #expect(Set(many.keys) == [f.aliceRecording, f.bobRecording] && many[f.bobRecording]?.ownerID == f.bob)
        #expect(try await store.unsettledRecordings(recordedWithin: nil) == [f.aliceRecording, f.bobRecording, f.daveRecording])
        let morning = DateInterval(start: MeetingFixture.at(minutes: -10), end: MeetingFixture.at(minutes: 60))
        #expect(try await store.unsettledRecordings(recordedWithin: morning) == [f.aliceRecording])
        #expect(try await store.linkedRecordings().isEmpty)

        try await f.linkAll()
        #expect(try await store.unsettledRecordings(recordedWithin: nil).isEmpty)
        #expect(try await store.linkedRecordings() == [f.aliceRecording, f.bobRecording, f.daveRecording])
        // An unlinked, not manual, recording is unsettled again; a manual one never is.
        try await store.saveLinks([
            f.update(f.aliceRecording, to: nil, state: .unlinked, method: nil, action: "unlinked"),
            f.update(f.daveRecording, to: nil, state: .unlinked, method: .manual, manual: true, action: "unlinked"),
        ])
        #expect(try await store.unsettledRecordings(recordedWithin: nil) == [f.aliceRecording])
    }

    @Test(arguments: StoreBackend.available)
    func linksKeepHistoryAndAnAttendeeCacheThatOrphansKeep(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let store = opened.store
        let f = try await MeetingFixture.make(store)
        let recording = f.aliceRecording
        #expect(try await store.link(recordingID: recording) == nil)

        try await store.saveLink(f.update(recording, to: "q1"))
        let linked = try #require(try await store.link(recordingID: recording))
        #expect(linked.state == .linked && linked.method == .overlap && !linked.isManual)
        #expect(linked.meetingID == f.meetings["q1"] && linked.eventID == f.events["q1"])
        #expect(linked.cachedTitle == "Quarterly Überprüfung" && linked.cachedStart == MeetingFixture.t0)
        #expect(linked.cachedEnd == MeetingFixture.at(minutes: 60))
        let attendees = try await store.linkAttendees(recordingID: recording)
        #expect(attendees.map(\.email) == ["alice@example.com", "bob@example.com", "zoe@external.example"])
        #expect(attendees.map(\.role) == [.organizer, .required, .required] && attendees[2].name == "Zoë Ångström")
        #expect(attendees.map(\.response) == [.accepted, .accepted, .none])

        // Relinked: the cache follows the new event.
        try await store.saveLink(f.update(recording, to: "carol:design", action: "relinked", minutes: 1))
        #expect(try await store.link(recordingID: recording)?.meetingID == f.meetings["design"])
        #expect(try await store.linkAttendees(recordingID: recording).map(\.email) == ["carol@example.com", "alice@example.com"])

        // Orphaned: the meeting and the cached copy stay, only the event goes.
        try await store.saveLink(f.update(recording, to: nil, state: .orphaned, keepsCache: true, action: "orphaned", minutes: 2))
        let orphan = try #require(try await store.link(recordingID: recording))
        #expect(orphan.state == .orphaned && orphan.eventID == nil && orphan.meetingID == f.meetings["design"])
        #expect(orphan.cachedTitle == "Design Review" && orphan.cachedStart == MeetingFixture.at(minutes: 120))
        #expect(try await store.linkAttendees(recordingID: recording).map(\.email) == ["carol@example.com", "alice@example.com"])

        // Unlinked: nothing cached; two updates of one recording in one batch apply in order.
        try await store.saveLinks([
            f.update(recording, to: nil, state: .unlinked, method: nil, action: "unlinked", minutes: 3),
            f.update(recording, to: nil, state: .ambiguous, method: nil, action: "ambiguous", minutes: 4),
        ])
        let unlinked = try #require(try await store.link(recordingID: recording))
        #expect(unlinked.state == .ambiguous && unlinked.meetingID == nil && unlinked.cachedTitle == nil && unlinked.cachedStart == nil)
        #expect(try await store.linkAttendees(recordingID: recording).isEmpty)

        let history = try await store.linkHistory(recordingID: recording)
        #expect(history.map(\.action) == ["linked", "relinked", "orphaned", "unlinked", "ambiguous"])
        #expect(history.map(\.fromState) == [nil, .linked, .linked, .orphaned, .unlinked])
        #expect(history.map(\.toState) == [.linked, .linked, .orphaned, .unlinked, .ambiguous])
        #expect(history.map(\.fromMeeting) == [nil, f.meetings["q1"], f.meetings["design"], f.meetings["design"], nil])
        #expect(history.map(\.toMeeting) == [f.meetings["q1"], f.meetings["design"], f.meetings["design"], nil, nil])
        #expect(history[0].method == .overlap && history[0].score == 0.75 && history[0].actor == "linker" && history[0].reason == "test")
        #expect(history[0].at == MeetingFixture.at(minutes: 1000))

        // A link to an event that does not exist changes nothing.
        await #expect(throws: StoreError.self) {
            try await store.saveLink(
                LinkUpdate(recordingID: recording, state: .linked, method: .manual, eventID: 987_654, actor: "ada", action: "linked", reason: "x"))
        }
        #expect(try await store.linkHistory(recordingID: recording).count == 5)
        #expect(try await store.link(recordingID: recording)?.state == .ambiguous)
    }

    @Test(arguments: StoreBackend.available)
    func aManualUnlinkKeepsTheCachedMeetingButHistoryLinksItToNothing(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let store = opened.store
        let f = try await MeetingFixture.make(store)
        let recording = f.aliceRecording
        try await store.saveLink(f.update(recording, to: "q1"))
        try await store.saveLink(
            f.update(recording, to: nil, state: .unlinked, method: .manual, manual: true, keepsCache: true, action: "unlinked-by-hand", minutes: 1))

        let unlinked = try #require(try await store.link(recordingID: recording))
        #expect(unlinked.state == .unlinked && unlinked.isManual && unlinked.eventID == nil)
        #expect(unlinked.cachedTitle == "Quarterly Überprüfung" && unlinked.cachedStart == MeetingFixture.t0)
        #expect(try await store.linkAttendees(recordingID: recording).map(\.email) == ["alice@example.com", "bob@example.com", "zoe@external.example"])
        let summary = try #require(try await store.links(state: .unlinked, visibleTo: nil, afterRecordingID: nil, limit: 10).first)
        #expect(summary.meetingTitle == "Quarterly Überprüfung" && summary.meetingEnd == MeetingFixture.at(minutes: 60))
        let unlink = try #require(try await store.linkHistory(recordingID: recording).last)
        #expect(unlink.fromMeeting == f.meetings["q1"] && unlink.toMeeting == nil && unlink.toState == .unlinked)
        // A person's unlink stays: the linker does not pick it up again.
        #expect(try await store.unsettledRecordings(recordedWithin: nil).contains(recording) == false)
    }

    @Test(arguments: StoreBackend.available)
    func linkListsShowOnlyTheViewersRecordings(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let store = opened.store
        let f = try await MeetingFixture.make(store)
        try await f.linkAll()
        try await store.saveLink(
            LinkUpdate(
                recordingID: f.bobRecording, state: .ambiguous, method: nil, eventID: nil, candidatesJSON: #"[{"meeting":1}]"#,
                actor: "linker", action: "ambiguous", reason: "two close", at: MeetingFixture.at(minutes: 2000)))

        let all = try await store.links(state: nil, visibleTo: nil, afterRecordingID: nil, limit: 10)
        #expect(all.map(\.recording) == [f.aliceRecording, f.bobRecording, f.daveRecording])
        let alices = try #require(all.first)
        #expect(alices.recordingTitle == "Überprüfung notes" && alices.owner == "alice" && alices.meetingTitle == "Quarterly Überprüfung")
        #expect(alices.recordedAt == MeetingFixture.at(minutes: 2) && alices.meeting == f.meetings["q1"] && alices.score == 0.75)
        #expect(alices.meetingStart == MeetingFixture.t0 && alices.meetingEnd == MeetingFixture.at(minutes: 60))
        #expect(alices.validatedAt == MeetingFixture.at(minutes: 1000) && alices.method == .overlap && !alices.isManual)
        #expect(all[1].state == .ambiguous && all[1].candidates == #"[{"meeting":1}]"# && all[1].meeting == nil)
        #expect(all[2].isManual && all[2].method == .manual && all[2].owner == "dave")

        #expect(try await store.links(state: .linked, visibleTo: nil, afterRecordingID: nil, limit: 10).map(\.recording)
            == [f.aliceRecording, f.daveRecording])
        #expect(try await store.links(state: nil, visibleTo: f.bob, afterRecordingID: nil, limit: 10).map(\.recording) == [f.bobRecording])
        #expect(try await store.links(state: .linked, visibleTo: f.bob, afterRecordingID: nil, limit: 10).isEmpty)
        #expect(try await store.links(state: nil, visibleTo: nil, afterRecordingID: f.aliceRecording, limit: 1).map(\.recording)
            == [f.bobRecording])
        let byID = try await store.links(recordingIDs: [f.aliceRecording, f.daveRecording, f.failedRecording])
        #expect(Set(byID.keys) == [f.aliceRecording, f.daveRecording] && byID[f.daveRecording]?.isManual == true)
    }

    @Test(arguments: StoreBackend.available)
    func eventChangesNameTheLinksToRevalidate(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let store = opened.store
        let f = try await MeetingFixture.make(store)
        try await f.linkAll()
        // Every event was written at t0.
        #expect(try await store.linksTouchedByEvents(changedSince: MeetingFixture.t0) == [f.aliceRecording, f.bobRecording, f.daveRecording])
        #expect(try await store.linksTouchedByEvents(changedSince: MeetingFixture.at(minutes: 1)).isEmpty)
        let span = try #require(try await store.changedEventSpan(since: MeetingFixture.t0))
        #expect(span.start == MeetingFixture.t0 && span.end == MeetingFixture.at(minutes: 420))
        #expect(try await store.changedEventSpan(since: MeetingFixture.at(minutes: 1)) == nil)
    }

    @Test(arguments: StoreBackend.available)
    func concurrentWritesOfOneLinkKeepAnUnbrokenHistory(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let store = opened.store
        let f = try await MeetingFixture.make(store)
        // Daemons relinking the same recording at once: each change's "from" is the change before it.
        let targets: [String?] = ["q1", nil, "carol:design", "q1", nil, "design", "q1", nil]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, target) in (targets + targets).enumerated() {
                let update = f.update(
                    f.aliceRecording, to: target, state: target == nil ? .unlinked : .linked, method: target == nil ? nil : .overlap,
                    action: "change \(index)")
                group.addTask { try await store.saveLink(update) }
            }
            try await group.waitForAll()
        }
        let history = try await store.linkHistory(recordingID: f.aliceRecording)
        #expect(history.count == 2 * targets.count && history.first?.fromState == nil)
        for (before, after) in zip(history, history.dropFirst()) {
            #expect(after.fromState == before.toState && after.fromMeeting == before.toMeeting)
        }
        let link = try #require(try await store.link(recordingID: f.aliceRecording))
        #expect(link.state == history.last?.toState && link.meetingID == history.last?.toMeeting)
    }
}
