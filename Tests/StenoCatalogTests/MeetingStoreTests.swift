import Foundation
import StenoCatalog
import StenoCore
import Testing

/// Meetings as members and admins see them, on every backend (``MeetingFixture`` describes
/// the data): members see meetings of their own calendars, meetings they organise or are
/// invited to, and meetings their recordings are linked to.
@Suite("Meetings in the catalog")
struct MeetingStoreTests {
    func titles(_ store: any CatalogStore & IngestStore, _ query: MeetingQuery) async throws -> [String] {
        try await store.meetings(query).map(\.title)
    }

    @Test(arguments: StoreBackend.available)
    func eachMemberSeesTheirMeetingsAndAdminsSeeAll(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let store = opened.store
        let f = try await MeetingFixture.make(store)
        try await f.linkAll()

        #expect(
            try await titles(store, MeetingQuery())
                == ["Quarterly Überprüfung", "Design Review", "Alice focus time", "Cancelled sync", "Carol / Bob 1:1"])
        #expect(
            try await titles(store, MeetingQuery(visibleTo: f.alice))
                == ["Quarterly Überprüfung", "Design Review", "Alice focus time", "Cancelled sync"], "her own calendar")
        #expect(try await titles(store, MeetingQuery(visibleTo: f.bob)) == ["Quarterly Überprüfung", "Carol / Bob 1:1"], "invited")
        #expect(try await titles(store, MeetingQuery(visibleTo: f.carol)) == ["Design Review", "Carol / Bob 1:1"], "organiser")
        #expect(try await titles(store, MeetingQuery(visibleTo: f.dave)) == ["Alice focus time"], "his recording is linked to it")
        #expect(try await titles(store, MeetingQuery(visibleTo: f.ada)).isEmpty, "an admin's own id is a member's view")
    }

    @Test(arguments: StoreBackend.available)
    func listingsFilterByAttendeeTitleRecordingAndTime(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let store = opened.store
        let f = try await MeetingFixture.make(store)
        try await f.linkAll()

        #expect(try await titles(store, MeetingQuery(withEmail: "zoe@external.example")) == ["Quarterly Überprüfung"])
        #expect(try await titles(store, MeetingQuery(withEmail: "ZOE@External.Example")) == ["Quarterly Überprüfung"], "emails ignore case")
        #expect(try await titles(store, MeetingQuery(withEmail: "carol@example.com")) == ["Design Review", "Carol / Bob 1:1"], "organiser")
        #expect(try await titles(store, MeetingQuery(withEmail: "carol@example.com", visibleTo: f.bob)) == ["Carol / Bob 1:1"])
        #expect(try await titles(store, MeetingQuery(titleContains: "REVIEW")) == ["Design Review"])
        #expect(try await titles(store, MeetingQuery(titleContains: "_")).isEmpty, "LIKE wildcards are literal")
        #expect(try await titles(store, MeetingQuery(titleContains: "/ B")) == ["Carol / Bob 1:1"])
        #expect(try await titles(store, MeetingQuery(recorded: true)) == ["Quarterly Überprüfung", "Alice focus time", "Carol / Bob 1:1"])
        #expect(try await titles(store, MeetingQuery(recorded: false)) == ["Design Review", "Cancelled sync"])
        #expect(try await titles(store, MeetingQuery(recorded: true, visibleTo: f.carol)) == ["Carol / Bob 1:1"])
        #expect(
            try await titles(store, MeetingQuery(from: MeetingFixture.at(minutes: 100), to: MeetingFixture.at(minutes: 300)))
                == ["Design Review", "Alice focus time"])
        #expect(try await titles(store, MeetingQuery(offset: 1, limit: 2)) == ["Design Review", "Alice focus time"])
        #expect(try await titles(store, MeetingQuery(visibleTo: f.alice, offset: 3, limit: 5)) == ["Cancelled sync"])
    }

    @Test(arguments: StoreBackend.available)
    func summariesCarryOrganizerAttendeesRecordingsAndState(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let store = opened.store
        let f = try await MeetingFixture.make(store)
        try await f.linkAll()

        let all = try await store.meetings(MeetingQuery())
        let quarterly = try #require(all.first { $0.id == f.meetings["q1"] })
        #expect(quarterly.organizer == Attendee(email: "alice@example.com", name: "Alice", role: .organizer, response: .accepted))
        #expect(quarterly.attendeeCount == 3 && quarterly.recordings == [f.aliceRecording])
        #expect(quarterly.start == MeetingFixture.t0 && quarterly.end == MeetingFixture.at(minutes: 60))
        #expect(quarterly.onlineMeetingURL == "https://meet.example/q1" && quarterly.location == nil)
        #expect(!quarterly.isCancelled && !quarterly.isGone)
        let design = try #require(all.first { $0.id == f.meetings["design"] })
        #expect(design.organizer?.email == "carol@example.com" && design.attendeeCount == 2 && design.recordings.isEmpty)
        #expect(try #require(all.first { $0.id == f.meetings["cancelled"] }).isCancelled)

        // One meeting: its attendees, organizer first, and its recordings; hidden from others.
        let detail = try await store.meeting(id: try #require(f.meetings["q1"]), visibleTo: f.bob)
        #expect(detail.meeting == quarterly)
        #expect(detail.attendees.map(\.email) == ["alice@example.com", "bob@example.com", "zoe@external.example"])
        #expect(detail.attendees.map(\.response) == [.accepted, .accepted, .none] && detail.attendees[2].name == "Zoë Ångström")
        #expect(
            detail.recordings
                == [
                    MeetingRecording(
                        id: f.aliceRecording, title: "Überprüfung notes", recordedAt: MeetingFixture.at(minutes: 2), duration: 1800,
                        owner: "alice", state: .linked, method: .overlap, score: 0.75)
                ])
        await #expect(throws: StoreError.self) { _ = try await store.meeting(id: try #require(f.meetings["design"]), visibleTo: f.bob) }
        await #expect(throws: StoreError.self) { _ = try await store.meeting(id: 424_242, visibleTo: nil) }
        #expect(try await store.meeting(id: try #require(f.meetings["private"]), visibleTo: f.dave).recordings.map(\.id) == [f.daveRecording])
    }

    /// An all-day meeting says so, with its first and last day (the calendar's end is the day after).
    @Test(arguments: StoreBackend.available)
    func allDayMeetingsCarryTheirDays(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        var fixture = MeetingFixture(store: opened.store)
        fixture.alice = try await opened.store.addUser(UserDraft(name: "alice", emails: ["alice@example.com"])).id
        var offsite = MeetingFixture.occurrence("offsite", calendar: "alice", title: "Offsite", at: 0, organizer: "alice@example.com")
        offsite.isAllDay = true
        offsite.allDayStart = "2026-06-01"
        offsite.allDayEnd = "2026-06-03"
        var holiday = MeetingFixture.occurrence("holiday", calendar: "alice", title: "Holiday", at: 60, organizer: "alice@example.com")
        holiday.isAllDay = true
        holiday.allDayStart = "2026-02-28"
        holiday.allDayEnd = "2026-03-01"
        let timed = MeetingFixture.occurrence("timed", calendar: "alice", title: "Timed", at: 120, organizer: "alice@example.com")
        try await fixture.mirror(owner: fixture.alice, calendar: "alice", [offsite, holiday, timed])
        let meetings = Dictionary(uniqueKeysWithValues: try await opened.store.meetings(MeetingQuery()).map { ($0.title, $0) })
        #expect(meetings["Offsite"]?.isAllDay == true && meetings["Offsite"]?.firstDay == "2026-06-01" && meetings["Offsite"]?.lastDay == "2026-06-02")
        #expect(meetings["Holiday"]?.firstDay == "2026-02-28" && meetings["Holiday"]?.lastDay == "2026-02-28", "one day, its end in March")
        #expect(meetings["Timed"]?.isAllDay == false && meetings["Timed"]?.firstDay == nil)
    }

    /// `--with` by name (words from their start, organizers too), by domain, by email, any of
    /// several; a word only in a title matches no one.
    @Test(arguments: StoreBackend.available)
    func listingsFilterByAttendeeNameDomainOrAnyOfSeveral(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let store = opened.store
        let f = try await MeetingFixture.make(store)
        try await f.linkAll()
        let alices = ["Quarterly Überprüfung", "Design Review", "Alice focus time", "Cancelled sync"]
        #expect(Set(try await titles(store, MeetingQuery(withAny: [.name("ali")]))) == Set(alices))
        #expect(Set(try await titles(store, MeetingQuery(withAny: [.name("CAROL")]))) == ["Design Review", "Carol / Bob 1:1"])
        #expect(try await titles(store, MeetingQuery(withAny: [.name("quarterly")])) == [], "a title is no attendee")
        #expect(try await titles(store, MeetingQuery(withAny: [.name("Zoë")])) == ["Quarterly Überprüfung"])
        // Typed without the accents or in another case, as people type names (both backends).
        for typed in ["zoe", "ZOË", "angstrom", "zoë ång"] {
            #expect(try await titles(store, MeetingQuery(withAny: [.name(typed)])) == ["Quarterly Überprüfung"], "\(typed)")
        }
        #expect(try await titles(store, MeetingQuery(withAny: [.domain("external.example")])) == ["Quarterly Überprüfung"])
        #expect(try await titles(store, MeetingQuery(withAny: [.domain("example")])) == [], "a domain is whole")
        let anyOf = try await titles(store, MeetingQuery(withAny: [.email("zoe@external.example"), .name("carol")]))
        #expect(Set(anyOf) == ["Quarterly Überprüfung", "Design Review", "Carol / Bob 1:1"])
        #expect(try await titles(store, MeetingQuery(visibleTo: f.dave, withAny: [.name("ali")])) == ["Alice focus time"])
    }

    @Test(arguments: StoreBackend.available)
    func aMeetingWhoseEventsAreGoneKeepsItsLinkedAttendees(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let store = opened.store
        let f = try await MeetingFixture.make(store)
        try await f.linkAll()
        let removal = CalendarChangeSet(
            calendar: CalendarDescriptor(remoteID: "/cal/alice/", name: "alice"), scope: .incremental,
            removedResources: ["/cal/alice/private.ics"])
        _ = try await store.applyCalendarChanges(removal, accountID: try #require(f.accounts["alice"]), now: MeetingFixture.at(minutes: 10))

        let gone = try await store.meeting(id: try #require(f.meetings["private"]), visibleTo: nil)
        #expect(gone.meeting.isGone && !gone.meeting.isCancelled)
        #expect(gone.attendees.map(\.email) == ["alice@example.com"], "from the link's cache")
        #expect(gone.meeting.organizer?.email == "alice@example.com")
        // Dave still sees it through his recording, alice through its deleted event.
        #expect(try await titles(store, MeetingQuery(visibleTo: f.dave)) == ["Alice focus time"])
        #expect(try await titles(store, MeetingQuery(visibleTo: f.alice)).contains("Alice focus time"))
        // Left out of listings without gone meetings, but not while a recording is linked.
        #expect(try await titles(store, MeetingQuery(visibleTo: f.dave, hideGone: true)) == ["Alice focus time"])
        try await store.saveLinks([
            f.update(f.daveRecording, to: nil, state: .unlinked, method: nil, manual: true, keepsCache: true, action: "unlinked", minutes: 5)
        ])
        #expect(try await titles(store, MeetingQuery(visibleTo: nil, hideGone: true)).contains("Alice focus time") == false)
        #expect(try await titles(store, MeetingQuery(visibleTo: nil)).contains("Alice focus time"))
    }
}
