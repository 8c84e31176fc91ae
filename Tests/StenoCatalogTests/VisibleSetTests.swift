import Foundation
import StenoCatalog
import StenoCore
import Testing

/// What a member's listings hold, on every backend (``MeetingFixture`` describes the data):
/// listings read a member's visible meetings and recordings as sets, lookups by id test one
/// row; both must agree, for every member and every meeting and recording, whatever the state
/// of the links that make a recording visible through its meeting.
@Suite("Visible sets of members")
struct VisibleSetTests {
    /// Every meeting and recording of the fixture, by id.
    struct Everything {
        var meetings: [Int64]
        var recordings: [Int64]
    }

    /// The meetings and recordings `viewer` opens one by one.
    static func openedOneByOne(_ store: any CatalogStore, _ everything: Everything, as viewer: Int64) async throws -> Everything {
        var opened = Everything(meetings: [], recordings: [])
        for id in everything.meetings where (try? await store.meeting(id: id, visibleTo: viewer)) != nil { opened.meetings.append(id) }
        for id in everything.recordings where (try? await store.recording(id: id, visibleTo: viewer)) != nil {
            opened.recordings.append(id)
        }
        return opened
    }

    /// The meetings and recordings `viewer` lists, in id order.
    static func listed(_ store: any CatalogStore, as viewer: Int64?) async throws -> Everything {
        Everything(
            meetings: try await store.meetings(MeetingQuery(visibleTo: viewer, limit: 100)).map(\.id).sorted(),
            recordings: try await store.recordings(RecordingQuery(limit: 100, visibleTo: viewer)).map(\.id))
    }

    @Test(arguments: StoreBackend.available)
    func membersListWhatTheyMayOpenAndTheirMeetingsRecordings(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let store = opened.store
        let f = try await MeetingFixture.make(store)
        try await f.linkAll()
        let everything = try await Self.listed(store, as: nil)
        #expect(everything.meetings.count == 5 && everything.recordings.count == 4)

        let expected: [(name: String, id: Int64, recordings: Set<Int64>)] = [
            ("alice", f.alice, [f.aliceRecording, f.failedRecording, f.daveRecording]),  // dave's is linked to her focus time
            ("bob", f.bob, [f.bobRecording, f.aliceRecording]),  // alice's is linked to the quarterly he is invited to
            ("carol", f.carol, [f.bobRecording]),  // bob's is linked to her 1:1
            ("dave", f.dave, [f.daveRecording]),  // the focus time is visible through his recording only
            ("ada", f.ada, []),
        ]
        for viewer in expected {
            let listed = try await Self.listed(store, as: viewer.id)
            #expect(Set(listed.recordings) == viewer.recordings, "\(viewer.name)")
            let oneByOne = try await Self.openedOneByOne(store, everything, as: viewer.id)
            #expect(listed.meetings == oneByOne.meetings, "\(viewer.name)'s meetings")
            #expect(listed.recordings == oneByOne.recordings, "\(viewer.name)'s recordings")
        }
    }

    @Test(arguments: StoreBackend.available)
    func anOrphanedLinkKeepsARecordingVisibleAndAnAmbiguousOneDoesNot(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let store = opened.store
        let f = try await MeetingFixture.make(store)
        try await f.linkAll()
        // The 1:1 makes bob's recording visible to carol while its link is linked or orphaned.
        try await store.saveLink(f.update(f.bobRecording, to: nil, state: .orphaned, keepsCache: true, action: "orphaned", minutes: 1))
        #expect(try await Self.listed(store, as: f.carol).recordings == [f.bobRecording])
        #expect(try await store.recording(id: f.bobRecording, visibleTo: f.carol).id == f.bobRecording)
        #expect(try await store.search("bob recording", visibleTo: f.carol, offset: 0, limit: 10).map(\.id).contains(f.bobRecording))

        try await store.saveLink(
            f.update(f.bobRecording, to: "carol:one-on-one", state: .ambiguous, method: nil, action: "ambiguous", minutes: 2))
        #expect(try await Self.listed(store, as: f.carol).recordings == [])
        await #expect(throws: StoreError.self) { _ = try await store.recording(id: f.bobRecording, visibleTo: f.carol) }
        #expect(try await store.search("bob recording", visibleTo: f.carol, offset: 0, limit: 10).filter { $0.kind == "recording" } == [])
        #expect(try await Self.listed(store, as: f.bob).recordings.contains(f.bobRecording), "his own, whatever its link")
    }

    /// A member's listing read a page at a time (one meeting each, in both orders, by
    /// position and by offset, within a range) holds what it holds whole; and a write that
    /// takes a meeting from a member shows on their next page and search: their set is held
    /// between pages only until the catalog changes.
    @Test(arguments: StoreBackend.available)
    func aMembersPagesFollowTheirSetUntilAWriteHidesAMeeting(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let store = opened.store
        let f = try await MeetingFixture.make(store)
        try await f.linkAll()
        for newestFirst in [false, true] {
            let whole = try await store.meetings(MeetingQuery(visibleTo: f.alice, newestFirst: newestFirst)).map(\.id)
            #expect(whole.count == 4, "alice's calendar")
            var byPosition: [Int64] = []
            var byOffset: [Int64] = []
            var after: MeetingPosition?
            for offset in 0..<(whole.count + 1) {
                if let meeting = try await store.meetings(MeetingQuery(visibleTo: f.alice, newestFirst: newestFirst, after: after, limit: 1)).first {
                    byPosition.append(meeting.id)
                    after = MeetingPosition(meeting)
                }
                let page = try await store.meetings(MeetingQuery(visibleTo: f.alice, newestFirst: newestFirst, offset: offset, limit: 1))
                byOffset += page.map(\.id)
            }
            #expect(byPosition == whole, "newest first: \(newestFirst)")
            #expect(byOffset == whole, "newest first: \(newestFirst)")
            let range = try await store.meetings(
                MeetingQuery(from: MeetingFixture.at(minutes: 100), to: MeetingFixture.at(minutes: 300), visibleTo: f.alice, newestFirst: newestFirst))
            #expect(range.map(\.id) == [f.meetings["design"], f.meetings["private"]].compactMap { $0 }.reversed(newestFirst))
        }

        // Dave sees alice's focus time through his recording only: unlinked, it is gone.
        let focus = try #require(f.meetings["private"])
        #expect(try await store.meetings(MeetingQuery(visibleTo: f.dave)).map(\.id) == [focus])
        #expect(try await store.search("focus", visibleTo: f.dave, offset: 0, limit: 10).contains { $0.kind == "meeting" && $0.id == focus })
        try await store.saveLink(f.update(f.daveRecording, to: nil, state: .unlinked, method: nil, action: "unlinked", minutes: 3))
        #expect(try await store.meetings(MeetingQuery(visibleTo: f.dave)).map(\.id) == [])
        #expect(try await store.meetings(MeetingQuery(visibleTo: f.dave, after: MeetingPosition(startMilliseconds: nil, id: 0))).map(\.id) == [])
        #expect(try await store.search("focus", visibleTo: f.dave, offset: 0, limit: 10).filter { $0.kind == "meeting" } == [])
        await #expect(throws: StoreError.self) { _ = try await store.meeting(id: focus, visibleTo: f.dave) }
        #expect(try await Self.listed(store, as: f.dave).recordings == [f.daveRecording], "his own, whatever its link")
    }

    /// A member's `--with`, `--title` and `--recorded` / `--unrecorded` pages (narrowed by the
    /// people, titles and recorded flags held with their set), one meeting at a time in both
    /// orders, hold the whole filtered listing's meetings that the member holds, in its order.
    @Test(arguments: StoreBackend.available)
    func aMembersWithAndTitlePagesAreTheFilteredListingsMeetingsTheyHold(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let store = opened.store
        let f = try await MeetingFixture.make(store)
        try await f.linkAll()
        let filters: [MeetingQuery] =
            ["alice@example.com", "BOB@example.com", "carol@example.com", "zoe@external.example", "nobody@example.com"].map {
                MeetingQuery(withEmail: $0)
            } + ["Review", "focus", "1:1", "sync", "absent"].map { MeetingQuery(titleContains: $0) }
            + [true, false].map { MeetingQuery(recorded: $0) }
            + [MeetingQuery(withEmail: "bob@example.com", titleContains: "q", recorded: true), MeetingQuery(titleContains: "e", recorded: false)]
        for viewer in [f.alice, f.bob, f.carol, f.dave, f.ada] {
            let held = Set(try await store.meetings(MeetingQuery(visibleTo: viewer)).map(\.id))
            for filter in filters {
                for newestFirst in [false, true] {
                    var query = filter
                    query.newestFirst = newestFirst
                    let expected = try await store.meetings(query).map(\.id).filter(held.contains)
                    query.visibleTo = viewer
                    #expect(try await store.meetings(query).map(\.id) == expected, "\(viewer) \(filter)")
                    var paged: [Int64] = []
                    query.limit = 1
                    for _ in 0...expected.count {
                        guard let meeting = try await store.meetings(query).first else { break }
                        paged.append(meeting.id)
                        query.after = MeetingPosition(meeting)
                    }
                    #expect(paged == expected, "\(viewer) \(filter) by page, newest first: \(newestFirst)")
                }
            }
        }
    }
}

extension Array {
    /// The elements, reversed when `reversing`.
    fileprivate func reversed(_ reversing: Bool) -> [Element] { reversing ? reversed() : self }
}
