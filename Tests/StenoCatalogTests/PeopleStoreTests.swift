import Foundation
import StenoCore
import Testing

@testable import StenoCatalog

/// What the catalog holds about a person, and their erasure, on every backend: after
/// `forget`, no table and no index of the catalog (a `VACUUM INTO` copy, a `pg_dump`) holds
/// the address or the name, and a sync that brings the person back stores them redacted.
@Suite("People: the right of access and erasure")
struct PeopleStoreTests {
    let now = MeetingFixture.at(minutes: 5000)
    /// How the fixture's external attendee is spelled in the catalog: her address, her name,
    /// and the words the search index folds them to.
    static let traces = ["zoe@external.example", "Zoë", "Ångström", "angstrom", "zoe"]

    @Test(arguments: StoreBackend.available)
    func showListsWhatTheCatalogHoldsAboutAnAddress(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let f = try await MeetingFixture.make(opened.store)
        try await f.linkAll()
        let zoe = try await opened.store.person(email: " ZOE@External.example ")
        #expect(
            zoe
                == PersonRecord(
                    email: "zoe@external.example", names: ["Zoë Ångström"], user: nil, forgotten: false, events: 1,
                    meetings: [PersonMeeting(id: f.meetings["q1"] ?? 0, title: "Quarterly Überprüfung", startsAt: MeetingFixture.at(minutes: 0))],
                    linkedRecordings: [f.aliceRecording], ownedRecordings: []))
        let bob = try await opened.store.person(email: "bob@example.com")
        #expect(bob.user == "bob" && bob.names == ["Bob"] && bob.ownedRecordings == [f.bobRecording] && bob.events == 2)
        #expect(bob.meetings.map(\.title) == ["Carol / Bob 1:1", "Quarterly Überprüfung"], "newest first")
        #expect(try await opened.store.person(email: "nobody@example.com").isEmpty)
    }

    @Test(arguments: StoreBackend.available)
    func aForgottenPersonLeavesNoTraceAndStaysForgotten(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let store = opened.store
        let f = try await MeetingFixture.make(store)
        try await f.linkAll()
        let before = try await opened.dump()
        let held = Self.traces.filter { Self.holds(before, $0) }
        #expect(held == Self.traces, "the fixture holds her, in the tables and in the indexes")
        #expect(try await store.search("Ångström", visibleTo: nil, offset: 0, limit: 10).count == 1)

        let report = try await store.forget(email: "Zoe@External.example", now: now)
        let redacted = ForgottenPerson.redactedAddress(key: ForgottenPerson.key(of: "zoe@external.example"))
        #expect(
            report
                == ForgetReport(redactedAddress: redacted, wasForgotten: false, events: 1, recordings: 1, meetings: 1, user: nil, ownedRecordings: []))
        try await expectNoTrace(in: opened, "after the erasure")
        #expect(try await store.search("Ångström", visibleTo: nil, offset: 0, limit: 10).isEmpty)
        #expect(try await store.search("zoe", visibleTo: nil, offset: 0, limit: 10).isEmpty)
        let q1 = try await store.meeting(id: f.meetings["q1"] ?? 0, visibleTo: nil)
        #expect(q1.attendees.contains { $0.email == redacted && $0.name == nil }, "her place in the meeting stays, redacted")
        #expect(q1.attendees.contains { $0.email == "bob@example.com" && $0.name == "Bob" }, "the others stay as they were")

        // A sync brings her back, invited again and now hosting a meeting of her own.
        var invited = MeetingFixture.occurrence(
            "q1", calendar: "alice", title: "Quarterly Überprüfung (moved)", at: 10, organizer: "alice@example.com",
            attendees: [
                Attendee(email: "bob@example.com", name: "Bob", response: .accepted),
                Attendee(email: "ZOE@external.example", name: "Zoë Ångström", response: .accepted),
            ])
        invited.remoteID = "/cal/alice/q1.ics"
        let hosted = MeetingFixture.occurrence(
            "offsite", calendar: "alice", title: "Offsite planning", at: 600, organizer: "zoe@external.example",
            attendees: [Attendee(email: "alice@example.com", name: "Alice")])
        var changes = CalendarChangeSet(calendar: CalendarDescriptor(remoteID: "/cal/alice/", name: "alice"), scope: .incremental)
        changes.updatedResources = [
            ResourceUpdate(resource: "/cal/alice/q1.ics", etag: "\"2\"", occurrences: [invited]),
            ResourceUpdate(resource: "/cal/alice/offsite.ics", etag: "\"1\"", occurrences: [hosted]),
        ]
        _ = try await store.applyCalendarChanges(changes, accountID: f.accounts["alice"] ?? 0, now: now)
        try await expectNoTrace(in: opened, "after a sync brought her back")
        let offsite = try await store.search("Offsite", visibleTo: nil, offset: 0, limit: 10).filter { $0.kind == "meeting" }
        #expect(offsite.count == 1)
        let hostedMeeting = try await store.meeting(id: offsite.first?.id ?? 0, visibleTo: nil)
        let organizer = hostedMeeting.attendees.first { $0.role == .organizer }
        #expect(organizer?.email == redacted)
        #expect(organizer?.name == nil)
        let again = try await store.person(email: "zoe@external.example")
        #expect(again.forgotten && again.isEmpty)
        #expect(try await store.forget(email: "zoe@external.example", now: now).wasForgotten)
    }

    @Test(arguments: StoreBackend.available)
    func forgettingAUsersAddressListsTheirRecordingsAndKeepsTheAccount(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let store = opened.store
        let f = try await MeetingFixture.make(store)
        try await f.linkAll()
        let alice = try await store.person(email: "alice@example.com")
        let report = try await store.forget(email: "bob@example.com", now: now)
        #expect(report.user == "bob" && report.ownedRecordings == [f.bobRecording] && report.events == 2 && report.meetings == 2)
        let bob = try await store.user(matching: "bob")
        #expect(bob.emails.isEmpty, "the account stays, without the address")
        let dump = try await opened.dump()
        let found = Self.lines(of: dump, holding: "bob@example.com")
        #expect(found.isEmpty)
        #expect(try await store.person(email: "bob@example.com").isEmpty)
        #expect(try await store.person(email: "alice@example.com") == alice, "no one else is touched")
    }

    private func expectNoTrace(in opened: OpenedCatalog, _ when: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let dump = try await opened.dump()
        let found = Self.traces.map { Self.lines(of: dump, holding: $0) }.filter { !$0.isEmpty }
        #expect(found.isEmpty, "still in the catalog \(when)", sourceLocation: sourceLocation)
    }

    static func holds(_ dump: String, _ trace: String) -> Bool { dump.range(of: trace, options: [.caseInsensitive]) != nil }

    /// The dump's lines that hold `trace`, for the failure message.
    static func lines(of dump: String, holding trace: String) -> String {
        dump.split(separator: "\n").filter { holds(String($0), trace) }.prefix(5).map { String($0.prefix(300)) }.joined(separator: " | ")
    }
}
