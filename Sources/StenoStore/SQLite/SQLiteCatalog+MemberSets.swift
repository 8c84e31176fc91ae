import Foundation
import GRDB
import StenoCore

/// A member's listings and searches driven from their visible set, held by
/// ``VisibleSetCache``: a page reads the meetings (or recordings) of the set its range and
/// position select, in listing order, a chunk at a time, instead of building the whole set
/// through its joins and testing every meeting of the range against it on every page.
extension SQLiteCatalog {
    /// `user`'s visible meetings in ascending listing order, as held for `generation` or
    /// read now in `db` (a read that began at `generation` or later).
    func visibleMeetingKeys(_ db: Database, of user: Int64, generation: UInt64) throws -> [MeetingKey] {
        if let keys = visibleSets.sets(of: user, at: generation)?.meetings { return keys }
        // Unordered, so the set drives (its meetings by id); sorted here: asked to order,
        // SQLite may walk every meeting by start testing each against the set.
        var keys: [MeetingKey] = []
        let rows = try Row.fetchCursor(db.cachedStatement(sql: Self.visibleMeetingKeysStatement), arguments: ["v": user])
        while let row = try rows.next() { keys.append(MeetingKey(start: row[0], id: row[1])) }
        keys.sort()
        visibleSets.store(VisibleSetCache.Sets(meetings: keys), of: user, at: generation)
        return keys
    }

    /// The start and id of every meeting `:v` may see (its plan is checked by tests).
    static let visibleMeetingKeysStatement = "SELECT m.starts_at, m.id FROM meetings m WHERE m.id IN (\(visibleMeetingIDs(of: ":v")))"

    /// `user`'s visible recordings by id, as held for `generation` or read now in `db`.
    func visibleRecordingIDs(_ db: Database, of user: Int64, generation: UInt64) throws -> [Int64] {
        if let ids = visibleSets.sets(of: user, at: generation)?.recordings { return ids }
        let found = try Int64.fetchAll(
            db.cachedStatement(sql: Self.visibleRecordingIDs(of: ":v")), arguments: ["v": user])
        let ids = Set(found).sorted()
        visibleSets.store(VisibleSetCache.Sets(recordings: ids), of: user, at: generation)
        return ids
    }

    /// The meetings of `keys` (ascending listing order) that `query`'s range and position
    /// leave, in the query's order. Only narrows: the listing's statement tests every
    /// condition again on the meetings it is given.
    static func candidateMeetings(_ keys: [MeetingKey], for query: MeetingQuery) -> [Int64] {
        var lower = keys.startIndex
        var upper = keys.endIndex
        func firstIndex(notBelow key: MeetingKey) -> Int { keys.partitioningIndex { !($0 < key) } }
        func firstIndex(above key: MeetingKey) -> Int { keys.partitioningIndex { key < $0 } }
        if query.from != nil || query.to != nil {
            // A range leaves out meetings without a start (sorted first, at `Int64.min`).
            let from = query.from.map { milliseconds($0) } ?? Int64.min + 1
            lower = max(lower, firstIndex(notBelow: MeetingKey(start: from, id: Int64.min)))
        }
        if let to = query.to {
            upper = min(upper, firstIndex(notBelow: MeetingKey(start: milliseconds(to), id: Int64.min)))
        }
        if let after = query.after {
            let position = MeetingKey(start: after.startMilliseconds, id: after.id)
            if query.newestFirst {
                upper = min(upper, firstIndex(notBelow: position))
            } else {
                lower = max(lower, firstIndex(above: position))
            }
        }
        guard lower < upper else { return [] }
        let ids = keys[lower..<upper].lazy.map(\.id)
        return query.newestFirst ? Array(ids.reversed()) : Array(ids)
    }

    /// The first `wanted` results of `fetch` over `candidates` (in listing order), asked a
    /// chunk at a time: a page whose filters most of the set passes reads one chunk, one that
    /// few pass reads chunks twice as large each time. `fetch` gets a chunk and how many
    /// results are still wanted, and answers them in listing order.
    static func firstResults<Result>(
        among candidates: [Int64], wanted: Int, fetch: ([Int64], Int) throws -> [Result]
    ) rethrows -> [Result] {
        var results: [Result] = []
        var start = candidates.startIndex
        var size = max(256, wanted * 4)
        while results.count < wanted, start < candidates.endIndex {
            let end = min(candidates.endIndex, start + size)
            results += try fetch(Array(candidates[start..<end]), wanted - results.count)
            start = end
            size *= 2
        }
        return results
    }
}

extension Array {
    /// The index of the first element for which `isAbove` holds, the elements for which it
    /// holds forming a suffix (binary search).
    func partitioningIndex(where isAbove: (Element) -> Bool) -> Int {
        var low = startIndex
        var high = endIndex
        while low < high {
            let middle = low + (high - low) / 2
            if isAbove(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
