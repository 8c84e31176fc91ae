import Foundation
import StenoCatalog
import StenoCore
import Testing

/// One meeting identity across calendars is no door: a member who writes the UID of someone
/// else's meeting into their own calendar gets a meeting of their own, sees nothing of the
/// other copies, and changes nothing others see; a member's calendar speaks only for that
/// member when recordings are linked. On every backend, for every provider's accounts.
@Suite("Meeting membership across calendars")
struct MeetingMembershipStoreTests {
    static let providers: [CalendarProviderKind] = [.device, .ics, .caldav, .graph]

    @Test(arguments: StoreBackend.available, providers)
    func aCopyUnderSomeoneElsesUIDIsItsOwnersOwnMeeting(backend: StoreBackend, provider: CalendarProviderKind) async throws {
        let opened = try await backend.open()
        var f = try await MeetingFixture.make(opened.store)
        try await f.linkAll()
        let focus = try #require(f.meetings["private"])
        let before = try await opened.store.meetings(MeetingQuery(visibleTo: nil, limit: 100)).count
        // Bob is not invited to alice's focus time (dave's recording is linked to it); he writes
        // its UID into his own calendar, naming alice as organizer and himself as attendee.
        var planted = MeetingFixture.occurrence(
            "private", calendar: "bob", title: "bob's copy", at: 240, organizer: "alice@example.com",
            attendees: [Attendee(email: "bob@example.com", name: "Bob", response: .accepted)])
        planted.remoteID = "/cal/bob/private.ics"
        try await f.mirror(owner: f.bob, calendar: "bob", provider: provider, [planted])

        let store = opened.store
        let bobsCopy = try #require(f.meetings["private"])
        #expect(bobsCopy != focus, "his copy is a meeting of its own")
        #expect(try await store.meetings(MeetingQuery(visibleTo: nil, limit: 100)).count == before + 1)
        await #expect(throws: StoreError.self) { _ = try await store.meeting(id: focus, visibleTo: f.bob) }
        await #expect(throws: StoreError.self) { _ = try await store.recording(id: f.daveRecording, visibleTo: f.bob) }
        let bobsMeetings = try await store.meetings(MeetingQuery(visibleTo: f.bob, limit: 100))
        #expect(!bobsMeetings.map(\.id).contains(focus))
        #expect(bobsMeetings.first { $0.id == bobsCopy }?.title == "bob's copy")
        let bobsRecordings = try await store.recordings(RecordingQuery(limit: 100, visibleTo: f.bob)).map(\.id)
        #expect(!bobsRecordings.contains(f.daveRecording) && !bobsRecordings.contains(f.failedRecording))
        // Nothing alice sees changed.
        let hers = try await store.meeting(id: focus, visibleTo: f.alice)
        #expect(hers.meeting.title == "Alice focus time" && hers.attendees.map(\.email) == ["alice@example.com"])
        #expect(hers.recordings.map(\.id) == [f.daveRecording])
        #expect(try await store.search("copy", visibleTo: f.alice, offset: 0, limit: 10).map(\.id).contains(focus) == false)
    }

    @Test(arguments: StoreBackend.available)
    func copiesThatNameEachOtherAreOneMeetingTitledByTheOrganizersCopy(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        var f = try await MeetingFixture.make(opened.store)
        let store = opened.store
        let design = try #require(f.meetings["design"])
        #expect(f.events["design"] != nil && f.events["carol:design"] != nil)
        // Alice (invited) renames her copy last: the organizer's copy still decides.
        var renamed = MeetingFixture.occurrence(
            "design", calendar: "alice2", title: "Design Review (alice's notes)", at: 150, organizer: "carol@example.com",
            attendees: [Attendee(email: "alice@example.com", name: "Alice", response: .accepted)])
        renamed.remoteID = "/cal/alice2/design.ics"
        try await f.mirror(owner: f.alice, calendar: "alice2", provider: .device, [renamed])
        #expect(f.meetings["design"] == design)
        var detail = try await store.meeting(id: design, visibleTo: nil)
        #expect(detail.meeting.title == "Design Review" && detail.meeting.start == MeetingFixture.at(minutes: 120))
        // The organizer moves it: everyone's meeting follows.
        var moved = MeetingFixture.occurrence(
            "design", calendar: "carol", title: "Design Review v2", at: 180, organizer: "carol@example.com",
            attendees: [Attendee(email: "alice@example.com", name: "Alice", response: .tentative)])
        moved.remoteID = "/cal/carol/design.ics"
        var changes = CalendarChangeSet(calendar: CalendarDescriptor(remoteID: "/cal/carol/", name: "carol"), scope: .incremental)
        changes.updatedResources = [ResourceUpdate(resource: "/cal/carol/design.ics", etag: "\"2\"", occurrences: [moved])]
        _ = try await store.applyCalendarChanges(changes, accountID: try #require(f.accounts["carol"]), now: MeetingFixture.t0)
        detail = try await store.meeting(id: design, visibleTo: f.alice)
        #expect(detail.meeting.title == "Design Review v2" && detail.meeting.start == MeetingFixture.at(minutes: 180))
    }

    @Test(arguments: StoreBackend.available, providers)
    func onlyTheOwnersCalendarsAndOrganizersOwnCopiesSpeakForTheOwner(backend: StoreBackend, provider: CalendarProviderKind) async throws {
        let opened = try await backend.open()
        var f = try await MeetingFixture.make(opened.store)
        let store = opened.store
        // In bob's calendar: an event claiming alice organised it and accepted, and one bob
        // organises inviting alice.
        try await f.mirror(
            owner: f.bob, calendar: "bob", provider: provider,
            [
                MeetingFixture.occurrence(
                    "planted", calendar: "bob", title: "PLANTED", at: 0, organizer: "alice@example.com",
                    attendees: [Attendee(email: "alice@example.com", name: "Alice", response: .accepted)]),
                MeetingFixture.occurrence(
                    "bobs-invite", calendar: "bob", title: "Bob's invitation", at: 10, organizer: "bob@example.com",
                    attendees: [Attendee(email: "alice@example.com", name: "Alice", response: .accepted)]),
            ])
        let window = DateInterval(start: MeetingFixture.at(minutes: -30), end: MeetingFixture.at(minutes: 60))
        let candidates = Dictionary(
            try await store.linkCandidates(ownerID: f.alice, window: window).map { ($0.title, $0.ownerRelation) }, uniquingKeysWith: { a, _ in a })
        #expect(candidates["PLANTED"] == .unrelated)
        #expect(candidates["Bob's invitation"] == .attendee(.accepted))
        #expect(candidates["Quarterly Überprüfung"] == .organizer)
        let byHint = try await store.identityCandidates(iCalUID: "planted", eventID: nil, ownerID: f.alice)
        #expect(byHint.map(\.ownerRelation) == [.unrelated])
        // For bob himself his own calendar speaks.
        let bobs = try await store.identityCandidates(iCalUID: "planted", eventID: nil, ownerID: f.bob)
        #expect(bobs.map(\.ownerRelation) == [.ownCalendar])
    }
}
