import Foundation
import StenoCore

/// A meeting's place in an ascending listing: its start (`Int64.min` for a meeting without
/// one, which both catalogs sort before every start), then its id.
package struct MeetingKey: Sendable, Comparable {
    package var start: Int64
    package var id: Int64

    package init(start: Int64?, id: Int64) {
        self.start = start ?? Int64.min
        self.id = id
    }

    package static func < (lhs: MeetingKey, rhs: MeetingKey) -> Bool {
        (lhs.start, lhs.id) < (rhs.start, rhs.id)
    }
}

/// What a member's page reads of their held visible set (``VisibleSetCache``): the ids its
/// range and position leave, in its order, asked of the catalog a chunk at a time. Both
/// catalogs' statements take the range, the position and the order from here and test the
/// other conditions on the ids given.
package enum MemberPageCandidates {
    /// The meetings of `keys` (ascending listing order) that `query`'s range and position
    /// leave, in the query's order.
    package static func meetings(_ keys: [MeetingKey], for query: MeetingQuery) -> [Int64] {
        var lower = keys.startIndex
        var upper = keys.endIndex
        func firstIndex(notBelow key: MeetingKey) -> Int { keys.partitioningIndex { !($0 < key) } }
        if query.from != nil || query.to != nil {
            // A range leaves out meetings without a start (sorted first, at `Int64.min`).
            let from = query.from.map(CatalogTime.milliseconds) ?? Int64.min + 1
            lower = max(lower, firstIndex(notBelow: MeetingKey(start: from, id: Int64.min)))
        }
        if let to = query.to {
            upper = min(upper, firstIndex(notBelow: MeetingKey(start: CatalogTime.milliseconds(to), id: Int64.min)))
        }
        if let after = query.after {
            let position = MeetingKey(start: after.startMilliseconds, id: after.id)
            if query.newestFirst {
                upper = min(upper, firstIndex(notBelow: position))
            } else {
                lower = max(lower, keys.partitioningIndex { position < $0 })
            }
        }
        guard lower < upper else { return [] }
        let ids = keys[lower..<upper].lazy.map(\.id)
        return query.newestFirst ? Array(ids.reversed()) : Array(ids)
    }

    /// How many of an address's rows a member's `--with` page walks per held candidate before
    /// it tests the candidates by key instead: a test by key is a lookup of its own, a walked
    /// row the next entry of one index range (about a tenth of the cost at a million meetings).
    package static let addressRowsPerCandidate = 8

    /// The recordings of `ids` (ascending) after `afterID`.
    package static func recordings(_ ids: [Int64], after afterID: Int64?) -> [Int64] {
        let after = afterID ?? Int64.min
        return Array(ids[ids.partitioningIndex { $0 > after }...])
    }

    /// Chunks of `candidates` in order until `wanted` results are found: the first four times
    /// the page, each next one twice the last, so a page whose filters most of the set
    /// passes reads one chunk and one that few pass reads a few.
    package struct Chunks {
        private let candidates: [Int64]
        private let wanted: Int
        private var start = 0
        private var size: Int

        package init(_ candidates: [Int64], wanted: Int) {
            self.candidates = candidates
            self.wanted = wanted
            size = max(256, wanted * 4)
        }

        /// The next chunk and how many results are still wanted, given how many were found;
        /// nil when the page is full or the candidates are all read.
        package mutating func next(found: Int) -> (ids: [Int64], wanted: Int)? {
            guard found < wanted, start < candidates.endIndex else { return nil }
            let end = min(candidates.endIndex, start + size)
            defer {
                start = end
                size *= 2
            }
            return (Array(candidates[start..<end]), wanted - found)
        }
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
