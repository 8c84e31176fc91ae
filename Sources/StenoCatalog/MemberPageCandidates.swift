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
        let bounds = positions(keys, for: query)
        let ids = keys[bounds].lazy.map(\.id)
        return query.newestFirst ? Array(ids.reversed()) : Array(ids)
    }

    /// The meetings of `keys` at `held` (ascending positions in `keys`, e.g. a held address's
    /// or title's meetings) that `query`'s range and position leave, in the query's order.
    package static func meetings(_ keys: [MeetingKey], at held: [Int32], for query: MeetingQuery) -> [Int64] {
        let bounds = positions(keys, for: query)
        let lower = held.partitioningIndex { Int($0) >= bounds.lowerBound }
        let upper = held.partitioningIndex { Int($0) >= bounds.upperBound }
        let ids = held[lower..<max(lower, upper)].lazy.map { keys[Int($0)].id }
        return query.newestFirst ? Array(ids.reversed()) : Array(ids)
    }

    /// The positions in `keys` (ascending listing order) that `query`'s range and position leave.
    package static func positions(_ keys: [MeetingKey], for query: MeetingQuery) -> Range<Int> {
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
        return lower..<max(lower, upper)
    }

    /// The ids a member's page hands its statement, in the listing's order, and which of the
    /// query's conditions they already meet (the statement need not test those again).
    package struct Narrowed: Sendable, Equatable {
        package var ids: [Int64]
        /// Every id concerns `query.withEmail`.
        package var haveAddress = false
        /// Every id's title contains `query.titleContains`.
        package var haveTitle = false
        /// Every id has a recording, or has none, as `query.recorded` asks.
        package var haveRecorded = false

        package init(ids: [Int64], haveAddress: Bool = false, haveTitle: Bool = false, haveRecorded: Bool = false) {
            self.ids = ids
            self.haveAddress = haveAddress
            self.haveTitle = haveTitle
            self.haveRecorded = haveRecorded
        }

        /// `query` with the conditions these ids already meet taken out.
        package func remaining(of query: MeetingQuery) -> MeetingQuery {
            var remaining = query
            if haveAddress { remaining.withEmail = nil }
            if haveTitle { remaining.titleContains = nil }
            if haveRecorded { remaining.recorded = nil }
            return remaining
        }
    }

    /// The meetings of `keys` that `query`'s range and position leave, narrowed in memory by
    /// what is held for the same keys (each when given): to those of `query.withEmail` through
    /// `people`, those whose title holds `query.titleContains` through `titles`, and those with
    /// or without a recording (`query.recorded`) through `recorded`; in the query's order.
    package static func narrowed(
        _ keys: [MeetingKey], for query: MeetingQuery, people: HeldMeetingPeople? = nil, titles: HeldMeetingTitles? = nil,
        recorded: HeldMeetingRecordings? = nil
    ) -> Narrowed {
        let bounds = positions(keys, for: query)
        var held: [Int32]?
        func candidates() -> [Int] { held.map { $0.map(Int.init) } ?? Array(bounds) }
        let people = people?.isComplete == true ? people : nil
        if let email = query.withEmail, let people {
            held = people.positions(of: email).filter { bounds.contains(Int($0)) }
        }
        if let text = query.titleContains, let titles {
            held = titles.positions(containing: text, among: candidates())
        }
        if let wanted = query.recorded, let recorded {
            held = recorded.positions(wanted, among: candidates())
        }
        guard let held else { return Narrowed(ids: meetings(keys, for: query)) }
        return Narrowed(
            ids: meetings(keys, at: held, for: query), haveAddress: query.withEmail != nil && people != nil,
            haveTitle: query.titleContains != nil && titles != nil, haveRecorded: query.recorded != nil && recorded != nil)
    }

    /// Members holding at most this many meetings hold their meetings' people, titles and
    /// recorded flags too (``HeldMeetingPeople``, ``HeldMeetingTitles``,
    /// ``HeldMeetingRecordings``), each read once per catalog state when a page first needs
    /// it: beyond it, reading them would cost more than the pages they serve, and holding them
    /// too much memory.
    package static let heldDetailsLimit = 50_000

    /// How many of an address's rows a member's `--with` page (holding too many meetings to
    /// hold their people) walks per held candidate before it tests the candidates by key instead: a test by key is a lookup of its own, a walked
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
