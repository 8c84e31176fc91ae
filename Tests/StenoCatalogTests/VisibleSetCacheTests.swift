import Foundation
import StenoCore
import Testing

@testable import StenoCatalog
@testable import StenoSQLite

/// What ``VisibleSetCache`` serves: a member's sets only for the stamp they were read at, and
/// within its bounds; and which of a held set a member's page reads.
@Suite("Members' visible sets held between pages")
struct VisibleSetCacheTests {
    @Test func setsAreServedOnlyForTheStampTheyWereReadAt() {
        let cache = VisibleSetCache<UInt64>()
        cache.store(.init(meetings: [MeetingKey(start: 5, id: 1)]), of: 7, at: 3)
        cache.store(.init(recordings: [4, 9]), of: 7, at: 3)
        #expect(cache.sets(of: 7, at: 3)?.meetings?.map(\.id) == [1])
        #expect(cache.sets(of: 7, at: 3)?.recordings == [4, 9], "both sets of one stamp are kept")
        #expect(cache.sets(of: 7, at: 4) == nil, "a later change")
        #expect(cache.sets(of: 8, at: 3) == nil, "another member")
        cache.store(.init(recordings: [4]), of: 7, at: 4)
        #expect(cache.sets(of: 7, at: 4)?.meetings == nil, "the meetings read before the change are dropped")
        #expect(cache.sets(of: 7, at: 3) == nil)
    }

    @Test func heldSetsStayWithinTheirBounds() {
        let cache = VisibleSetCache<UInt64>()
        for user in 0..<Int64(VisibleSetCache<UInt64>.capacity + 1) { cache.store(.init(recordings: [user]), of: user, at: 1) }
        #expect(cache.sets(of: 0, at: 1) == nil, "dropped when the members passed the capacity")
        #expect(cache.sets(of: Int64(VisibleSetCache<UInt64>.capacity), at: 1)?.recordings != nil)
        let huge = Array(0..<Int64(VisibleSetCache<UInt64>.wordLimit + 1))
        cache.store(.init(recordings: huge), of: 99, at: 1)
        #expect(cache.sets(of: 99, at: 1) == nil, "a set larger than the limit is never held")
    }

    @Test func aPageReadsTheHeldMeetingsOfItsRangeAndPosition() {
        let keys = [MeetingKey(start: nil, id: 4), MeetingKey(start: 10, id: 2), MeetingKey(start: 10, id: 3), MeetingKey(start: 20, id: 1)]
        func ids(_ query: MeetingQuery) -> [Int64] { MemberPageCandidates.meetings(keys, for: query) }
        let at = { (milliseconds: Int64) in Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
        #expect(ids(MeetingQuery()) == [4, 2, 3, 1])
        #expect(ids(MeetingQuery(newestFirst: true)) == [1, 3, 2, 4])
        #expect(ids(MeetingQuery(to: at(20))) == [2, 3], "a range leaves out meetings without a start")
        #expect(ids(MeetingQuery(from: at(10), to: at(11))) == [2, 3])
        #expect(ids(MeetingQuery(after: MeetingPosition(startMilliseconds: 10, id: 2))) == [3, 1])
        #expect(ids(MeetingQuery(after: MeetingPosition(startMilliseconds: nil, id: 4))) == [2, 3, 1])
        #expect(ids(MeetingQuery(newestFirst: true, after: MeetingPosition(startMilliseconds: 10, id: 3))) == [2, 4])
        #expect(ids(MeetingQuery(newestFirst: true, after: MeetingPosition(startMilliseconds: nil, id: 5))) == [4])
        #expect(MemberPageCandidates.recordings([2, 5, 9], after: 5) == [9])
        var chunks = MemberPageCandidates.Chunks(Array(1...1000), wanted: 10)
        #expect(chunks.next(found: 0)?.ids.count == 256)
        let second = chunks.next(found: 4)
        #expect(second?.ids.first == 257 && second?.ids.count == 512 && second?.wanted == 6, "twice as large, for the six still wanted")
        #expect(chunks.next(found: 10) == nil, "the page is full")
    }
}
