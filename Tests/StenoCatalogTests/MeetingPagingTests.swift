import Foundation
import StenoCatalog
import StenoCore
import Testing

/// Meeting listings read page after page from a position (the last meeting of the page
/// before), on every backend: with several meetings starting at the same time, with meetings
/// added and removed between pages, as an admin and as a member.
@Suite("Meetings listed page by page")
struct MeetingPagingTests {
    /// Alice's calendar: 23 meetings, three or four at each start time (ties), bob invited to
    /// every third one.
    static func catalog(_ backend: StoreBackend) async throws -> (store: any CatalogStore & IngestStore, fixture: MeetingFixture, opened: OpenedCatalog) {
        let opened = try await backend.open()
        var fixture = MeetingFixture(store: opened.store)
        fixture.alice = try await opened.store.addUser(UserDraft(name: "alice", emails: ["alice@example.com"])).id
        fixture.bob = try await opened.store.addUser(UserDraft(name: "bob", emails: ["bob@example.com"])).id
        var occurrences: [EventOccurrence] = []
        for number in 0..<23 {
            let invited: [Attendee] = number % 3 == 0 ? [Attendee(email: "bob@example.com", response: .accepted)] : []
            let minutes = Double(number / 4 * 30)
            occurrences.append(
                MeetingFixture.occurrence(
                    "m\(number)", calendar: "alice", title: "Meeting \(number)", at: minutes, organizer: "alice@example.com", attendees: invited))
        }
        try await fixture.mirror(owner: fixture.alice, calendar: "alice", occurrences)
        return (opened.store, fixture, opened)
    }

    /// Every page of `query`, `size` at a time, each continuing after the last meeting of the one before.
    static func pages(_ store: any CatalogStore, _ query: MeetingQuery, size: Int) async throws -> [[MeetingSummary]] {
        var pages: [[MeetingSummary]] = []
        var query = query
        query.limit = size
        for _ in 0..<100 {
            let page = try await store.meetings(query)
            if page.isEmpty { break }
            pages.append(page)
            guard let last = page.last, page.count == size else { break }
            query.after = MeetingPosition(last)
        }
        return pages
    }

    @Test(arguments: StoreBackend.available)
    func pagesAfterAPositionNeitherRepeatNorSkipAcrossTies(backend: StoreBackend) async throws {
        let (store, fixture, opened) = try await Self.catalog(backend)
        _ = opened
        for viewer in [nil, fixture.bob] as [Int64?] {
            let everything = try await store.meetings(MeetingQuery(visibleTo: viewer, limit: 1000)).map(\.id)
            #expect(everything.count == (viewer == nil ? 23 : 8))
            for size in [1, 3, 4, 5, 22] {
                let paged = try await Self.pages(store, MeetingQuery(visibleTo: viewer), size: size).flatMap { $0.map(\.id) }
                #expect(paged == everything, "pages of \(size) as \(viewer.map(String.init) ?? "admin")")
            }
            // With a filter and a time range too.
            let range = MeetingQuery(from: MeetingFixture.at(minutes: 30), to: MeetingFixture.at(minutes: 120), titleContains: "meeting", visibleTo: viewer)
            var all = range
            all.limit = 1000
            let expected = try await store.meetings(all).map(\.id)
            #expect(!expected.isEmpty)
            #expect(try await Self.pages(store, range, size: 2).flatMap { $0.map(\.id) } == expected)
        }
    }

    /// Newest first is the same list backwards, page after page, ties included.
    @Test(arguments: StoreBackend.available)
    func newestFirstPagesAreTheListBackwards(backend: StoreBackend) async throws {
        let (store, fixture, opened) = try await Self.catalog(backend)
        _ = opened
        for viewer in [nil, fixture.bob] as [Int64?] {
            let everything = try await store.meetings(MeetingQuery(visibleTo: viewer, limit: 1000)).map(\.id)
            for size in [1, 3, 4, 22] {
                let paged = try await Self.pages(store, MeetingQuery(visibleTo: viewer, newestFirst: true), size: size).flatMap { $0.map(\.id) }
                #expect(paged == everything.reversed(), "pages of \(size) as \(viewer.map(String.init) ?? "admin")")
            }
        }
    }

    @Test(arguments: StoreBackend.available)
    func meetingsAddedOrRemovedBetweenPagesMoveNothingElse(backend: StoreBackend) async throws {
        let (store, made, opened) = try await Self.catalog(backend)
        _ = opened
        var fixture = made
        let before = try await store.meetings(MeetingQuery(limit: 1000)).map(\.id)
        let first = try await store.meetings(MeetingQuery(limit: 6))
        let last = try #require(first.last)
        #expect(first.map(\.id) == Array(before.prefix(6)))

        // Between pages: a meeting before the position, one after it, one at its very start
        // time, and one of the unread meetings disappears from every calendar.
        try await fixture.mirror(
            owner: fixture.alice, calendar: "later",
            [
                MeetingFixture.occurrence("early", calendar: "later", title: "Early", at: 0, organizer: "alice@example.com"),
                MeetingFixture.occurrence("late", calendar: "later", title: "Late", at: 400, organizer: "alice@example.com"),
                MeetingFixture.occurrence("tie", calendar: "later", title: "Tie", at: 30, organizer: "alice@example.com"),
            ])
        let removedID = before[10]
        var removal = CalendarChangeSet(calendar: CalendarDescriptor(remoteID: "/cal/alice/", name: "alice"), scope: .incremental)
        removal.removedResources = ["/cal/alice/m10.ics"]
        _ = try await store.applyCalendarChanges(removal, accountID: try #require(fixture.accounts["alice"]), now: MeetingFixture.t0)

        let rest = try await store.meetings(MeetingQuery(after: MeetingPosition(last), limit: 1000)).map(\.id)
        let added = try await store.meetings(MeetingQuery(titleContains: "Late", limit: 10)).map(\.id)
        let tie = try await store.meetings(MeetingQuery(titleContains: "Tie", limit: 10)).map(\.id)
        let early = try await store.meetings(MeetingQuery(titleContains: "Early", limit: 10)).map(\.id)
        #expect(Set(rest).isDisjoint(with: first.map(\.id)), "nothing read again")
        #expect(!rest.contains(early[0]), "a meeting added before the position is not shown")
        #expect(rest.contains(added[0]) && rest.contains(tie[0]), "meetings added after the position are shown (the tie has a larger id)")
        let unread = Set(before.dropFirst(6))
        #expect(unread.subtracting(rest).isSubset(of: [removedID]), "no unread meeting skipped")
        #expect(rest.count == Set(rest).count)
    }
}
