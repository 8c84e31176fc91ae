import Foundation
import StenoCatalog
import StenoCore
import Testing

/// Search ranks among the newest ``SearchHit/rankedAmongNewest`` matches of each kind, on
/// every backend: a word matching fewer is ranked among all of them (and says nothing), a
/// word matching more says so on its hits, which all come from the newest matches, for an
/// admin and for a member.
@Suite("Search ranking of very common words")
struct SearchRankingBoundTests {
    @Test(arguments: StoreBackend.available)
    func aWordMatchingMoreThanTheBoundIsRankedAmongTheNewestAndSaysSo(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let store = opened.store
        var fixture = MeetingFixture(store: store)
        fixture.alice = try await store.addUser(UserDraft(name: "alice", emails: ["alice@example.com"])).id
        fixture.bob = try await store.addUser(UserDraft(name: "bob", emails: ["bob@example.com"])).id
        let bound = SearchHit.rankedAmongNewest
        // Every meeting says "standup"; the oldest few say it twice (they would rank first
        // among all); "rareword" is in only three. Bob is invited to every meeting.
        var occurrences: [EventOccurrence] = []
        for number in 0..<(bound + 20) {
            let title = number < 5 ? "Standup standup standup" : number % 60 == 0 ? "Standup rareword" : "Standup \(number)"
            let invited = [Attendee(email: "bob@example.com", response: .accepted)]
            occurrences.append(
                MeetingFixture.occurrence(
                    "s\(number)", calendar: "alice", title: title, at: Double(number), organizer: "alice@example.com", attendees: invited))
        }
        try await fixture.mirror(owner: fixture.alice, calendar: "alice", occurrences)
        let everything = try await store.meetings(MeetingQuery(limit: 10_000)).map(\.id).sorted()
        #expect(everything.count == bound + 20)
        let newest = Set(everything.suffix(bound))

        for viewer in [nil, fixture.bob] as [Int64?] {
            let common = try await store.search("standup", visibleTo: viewer, offset: 0, limit: 50)
            #expect(common.count == 50)
            #expect(common.allSatisfy { $0.rankedAmongNewest == bound }, "the hits say they were ranked among the newest")
            #expect(common.allSatisfy { newest.contains($0.id) }, "every hit is among the newest matches")
            let rare = try await store.search("rareword", visibleTo: viewer, offset: 0, limit: 50)
            #expect(rare.count == 3 && rare.allSatisfy { $0.rankedAmongNewest == nil }, "a rare word is ranked among all its matches")
            // Paging through a common word never repeats a hit and stops at the bound.
            var seen: [Int64] = []
            for page in 0..<20 {
                let hits = try await store.search("standup", visibleTo: viewer, offset: page * 100, limit: 100)
                seen += hits.map(\.id)
                if hits.count < 100 { break }
            }
            #expect(seen.count == bound && Set(seen) == newest)
        }
    }
}
