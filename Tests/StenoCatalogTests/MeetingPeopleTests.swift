import Foundation
import StenoCatalog
import StenoCore
import Testing

/// `meeting_people`, the addresses each meeting concerns (what `meetings --with` walks), is
/// kept by the catalog itself on every backend: after each write through the stores' own
/// methods it holds exactly what the events say, every organizer and attendee address of any
/// event of a meeting (deleted events included) with the meeting's start.
@Suite("Addresses of meetings kept in step")
struct MeetingPeopleTests {
    /// The rows of `meeting_people`: meeting id, lowercased address, start.
    static func kept(_ opened: OpenedCatalog) async throws -> Set<[String?]> {
        Set(try await opened.rows("SELECT CAST(meeting_id AS TEXT), lower(CAST(email AS TEXT)), CAST(starts_at AS TEXT) FROM meeting_people"))
    }

    /// The same rows recomputed from the events, their attendees and the meetings.
    static func truth(_ opened: OpenedCatalog) async throws -> Set<[String?]> {
        Set(
            try await opened.rows(
                """
                SELECT CAST(m.id AS TEXT), lower(CAST(x.email AS TEXT)), CAST(m.starts_at AS TEXT) FROM (
                    SELECT e.meeting_id, e.organizer_email AS email FROM events e WHERE e.organizer_email IS NOT NULL
                    UNION ALL SELECT e.meeting_id, ea.email FROM event_attendees ea JOIN events e ON e.id = ea.event_id) x
                JOIN meetings m ON m.id = x.meeting_id
                """))
    }

    /// Alice's calendar again, listed whole: unlisted resources are gone.
    static func mirrorAlice(_ fixture: MeetingFixture, _ occurrences: [EventOccurrence], etag: Int) async throws {
        var changes = CalendarChangeSet(calendar: CalendarDescriptor(remoteID: "/cal/alice/", name: "alice"), scope: .complete)
        changes.updatedResources = occurrences.map {
            ResourceUpdate(resource: $0.remoteID, etag: "\"\(etag)\"", occurrences: [$0])
        }
        let account = try #require(fixture.accounts["alice"], "alice's account")
        _ = try await fixture.store.applyCalendarChanges(changes, accountID: account, now: MeetingFixture.t0)
    }

    @Test(arguments: StoreBackend.available)
    func everyWriteKeepsTheAddressesOfMeetingsInStep(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let fixture = try await MeetingFixture.make(opened.store)
        var checked: [String] = []
        func check(_ step: String) async throws {
            let kept = try await Self.kept(opened), truth = try await Self.truth(opened)
            #expect(kept == truth, "\(backend) after \(step): kept but untrue \(kept.subtracting(truth)), true but missing \(truth.subtracting(kept))")
            checked.append(step)
        }
        try await check("the fixture")
        #expect(try await Self.kept(opened).contains { $0[1] == "zoe@external.example" })

        let bob = Attendee(email: "bob@example.com", name: "Bob", response: .accepted)
        var quarterly = MeetingFixture.occurrence(
            "q1", calendar: "alice", title: "Quarterly Überprüfung", at: 0, organizer: "alice@example.com",
            attendees: [bob, Attendee(email: "New.Person@Example.com", name: "New")])
        var focus = MeetingFixture.occurrence("private", calendar: "alice", title: "Alice focus time", at: 240, organizer: "alice@example.com")
        let cancelled = MeetingFixture.occurrence(
            "cancelled", calendar: "alice", title: "Cancelled sync", at: 300, organizer: "alice@example.com", status: .cancelled)
        var design = MeetingFixture.occurrence(
            "design", calendar: "alice", title: "Design Review", at: 120, organizer: "carol@example.com",
            attendees: [Attendee(email: "alice@example.com", name: "Alice", response: .tentative)])
        // An attendee added (new.person), one removed (zoe).
        try await Self.mirrorAlice(fixture, [quarterly, design, focus, cancelled], etag: 2)
        try await check("an attendee added and one removed")
        #expect(try await !Self.kept(opened).contains { $0[1] == "zoe@external.example" })

        // Another organizer.
        focus.organizer = Attendee(email: "dave@example.com", name: "Dave", role: .organizer, response: .accepted)
        try await Self.mirrorAlice(fixture, [quarterly, design, focus, cancelled], etag: 3)
        try await check("an organizer changed")

        // Moved in time: the meeting's start moves with its rows.
        quarterly.start = MeetingFixture.at(minutes: 30)
        quarterly.end = MeetingFixture.at(minutes: 90)
        try await Self.mirrorAlice(fixture, [quarterly, design, focus, cancelled], etag: 4)
        try await check("an event moved in time")

        // Deleted (its addresses stay: deleted events count), then back.
        try await Self.mirrorAlice(fixture, [quarterly, design, focus], etag: 5)
        try await check("an event deleted")
        try await Self.mirrorAlice(fixture, [quarterly, design, focus, cancelled], etag: 6)
        try await check("an event restored")

        // Alice's copy of the design review becomes another meeting: carol's copy keeps the old
        // one, whose addresses stay; the new meeting gains them.
        design.iCalUID = "design-moved"
        design.seriesUID = "design-moved"
        design.meetingIdentity = MeetingIdentity.iCalendar(uid: "design-moved", recurrenceID: nil)
        design.attendees.append(Attendee(email: "erin@example.com", name: "Erin"))
        try await Self.mirrorAlice(fixture, [quarterly, design, focus, cancelled], etag: 7)
        try await check("an event re-assigned to another meeting")

        // A device pushes bob's copy of the quarterly with one more attendee, then deletes it
        // for good (its addresses stay while the tombstone does).
        let device = try await fixture.store.addDevice(ownerID: fixture.bob, label: "phone", timeZone: "UTC", tokenHash: Data([7]), now: MeetingFixture.t0)
        var pushed = quarterly
        pushed.remoteID = "bob-q1"
        pushed.attendees.append(Attendee(email: "Frank@Example.com", name: "Frank"))
        let work = CalendarDescriptor(remoteID: "work", name: "Work")
        _ = try await fixture.store.applyDeviceEvents(
            [DeviceEventWrite(remoteID: "bob-q1", externalUpdatedAt: 1_000, change: .upsert(calendar: work, occurrence: pushed, request: nil))],
            accountID: device.accountID, now: MeetingFixture.t0)
        try await check("a device event pushed")
        #expect(try await Self.kept(opened).contains { $0[1] == "frank@example.com" && $0[0] == fixture.meetings["q1"].map(String.init) })
        _ = try await fixture.store.applyDeviceEvents(
            [DeviceEventWrite(remoteID: "bob-q1", externalUpdatedAt: 2_000, change: .delete(allOccurrences: true))],
            accountID: device.accountID, now: MeetingFixture.t0)
        try await check("a device event deleted")

        // Alice's calendar disabled: her events are deleted (tombstones), carol's stay.
        let aliceAccount = try #require(fixture.accounts["alice"], "alice's account")
        let carolAccount = try #require(fixture.accounts["carol"], "carol's account")
        let calendars = try await fixture.store.calendars(accountID: aliceAccount, ownerID: nil)
        _ = try await fixture.store.setCalendarEnabled(id: try #require(calendars.first).id, enabled: false, now: MeetingFixture.t0)
        try await check("a calendar disabled")

        // Carol's calendar removed: its events go for good, and with them their addresses.
        try await fixture.store.removeCalendars(accountID: carolAccount, except: [])
        try await check("a calendar removed")
        #expect(try await !Self.kept(opened).contains { $0[1] == "bob@example.com" && $0[0] == fixture.meetings["one-on-one"].map(String.init) })
        #expect(checked.count == 11)
    }

    /// `--with` lists the same meetings, in the same order and pages, as the address's
    /// meetings found through the events, both ways and across meetings without a start.
    @Test(arguments: StoreBackend.available)
    func withListsTheAddressesMeetingsInOrderPageByPage(backend: StoreBackend) async throws {
        let (store, fixture, opened) = try await MeetingPagingTests.catalog(backend)
        for newestFirst in [false, true] {
            let everything = try await store.meetings(MeetingQuery(newestFirst: newestFirst, limit: 100))
            var expected: [Int64] = []
            for meeting in everything {
                let attendees = try await store.meeting(id: meeting.id, visibleTo: nil).attendees
                if attendees.contains(where: { $0.email == "bob@example.com" }) { expected.append(meeting.id) }
            }
            #expect(expected.count == 8)
            for size in [1, 3, 100] {
                let pages = try await MeetingPagingTests.pages(store, MeetingQuery(withEmail: "BOB@example.com", newestFirst: newestFirst), size: size)
                #expect(pages.flatMap { $0.map(\.id) } == expected, "\(backend) newest first \(newestFirst), pages of \(size)")
            }
        }
        withExtendedLifetime((fixture, opened)) {}
    }
}
