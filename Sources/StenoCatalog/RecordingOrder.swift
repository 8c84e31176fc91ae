import Foundation
import StenoCore

/// The order of a recordings listing: a sort and its direction.
public struct RecordingOrder: Sendable, Hashable {
    public var sort: RecordingSort
    public var descending: Bool

    public init(sort: RecordingSort, descending: Bool) {
        self.sort = sort
        self.descending = descending
    }

    /// Ascending ids: the order the catalog's own walks (relinking, rescans) take.
    public static let byID = RecordingOrder(sort: .id, descending: false)
    /// What `steno recordings` shows when no order is asked for.
    public static let newestFirst = RecordingOrder(sort: .recorded, descending: true)

    /// A recording's key in this order, as the catalogs compute it in SQL (``sqlKey(rangeGiven:)``).
    public func key(of recording: Recording) -> Double {
        switch sort {
        case .recorded: Double(CatalogTime.milliseconds(recording.recordedAt ?? recording.createdAt))
        case .ingested: Double(CatalogTime.milliseconds(recording.createdAt))
        case .id: Double(recording.id)
        case .length: recording.duration ?? 0
        }
    }

    /// Where a listing continues after `recording`.
    public func position(after recording: Recording) -> RecordingPosition {
        RecordingPosition(key: key(of: recording), id: recording.id)
    }

    /// Whether `lhs` comes before `rhs` in this order.
    public func precedes(_ lhs: RecordingPosition, _ rhs: RecordingPosition) -> Bool {
        descending ? (rhs.key, rhs.id) < (lhs.key, lhs.id) : (lhs.key, lhs.id) < (rhs.key, rhs.id)
    }

    /// `recordings` in this order (a page read by id puts its rows back in the listing's order).
    public func sorted(_ recordings: [Recording]) -> [Recording] {
        recordings.map { (position(after: $0), $0) }.sorted { precedes($0.0, $1.0) }.map(\.1)
    }
}

/// A recording's place in an ordered listing: its key in that order, then its id.
public struct RecordingPosition: Sendable, Hashable {
    /// Milliseconds since 1970 for the times, seconds for the length, the id itself for ids:
    /// each exact in a `Double`.
    public var key: Double
    public var id: Int64

    public init(key: Double, id: Int64) {
        self.key = key
        self.id = id
    }
}

extension RecordingOrder {
    /// The SQL of the key over `r` (a row of `recordings`), the same in both dialects. With a
    /// range of start times (`rangeGiven`, which leaves out recordings without one) the start
    /// itself, so the range's index gives the order too.
    package func sqlKey(rangeGiven: Bool) -> String {
        switch sort {
        case .recorded: rangeGiven ? "r.recorded_at" : "COALESCE(r.recorded_at, r.created_at)"
        case .ingested: "r.created_at"
        case .id: "r.id"
        case .length: "COALESCE(r.duration, 0)"
        }
    }

    /// Whether the key is a whole number (bound as a 64-bit integer, not a double).
    package var keyIsInteger: Bool { sort != .length }

    /// `ORDER BY` of a page in this order over `r`.
    package func sqlOrderBy(rangeGiven: Bool) -> String {
        let direction = descending ? " DESC" : ""
        return "\(sqlKey(rangeGiven: rangeGiven))\(direction), r.id\(direction)"
    }

    /// The condition of the rows after `key` and `id` (placeholders of the caller's dialect):
    /// a bound on the key first, so an index on it starts the walk there, then the tie by id.
    package func sqlAfter(rangeGiven: Bool, key: String, repeatedKey: String, id: String) -> String {
        let column = sqlKey(rangeGiven: rangeGiven)
        let (bound, strict) = descending ? ("<=", "<") : (">=", ">")
        return "\(column) \(bound) \(key) AND (\(column) \(strict) \(repeatedKey) OR r.id \(strict) \(id))"
    }
}

/// A member's visible recordings ordered by one sort (ascending), held with their sets
/// (``VisibleSetCache``) so each page of an ordered listing takes its candidates from here.
package struct HeldRecordingOrder: Sendable {
    package var sort: RecordingSort
    package var keys: [RecordingPosition]

    /// Sorts `keys` read in any order.
    package init(sort: RecordingSort, keys: [RecordingPosition]) {
        self.sort = sort
        self.keys = keys.sorted { ($0.key, $0.id) < ($1.key, $1.id) }
    }

    /// The ids after `position` (from the start without one) in `order`'s direction.
    package func candidates(after position: RecordingPosition?, descending: Bool) -> [Int64] {
        guard let position else { return descending ? keys.reversed().map(\.id) : keys.map(\.id) }
        let pivot = (position.key, position.id)
        if descending {
            let end = keys.partitioningIndex { ($0.key, $0.id) >= pivot }
            return keys[..<end].reversed().map(\.id)
        }
        let start = keys.partitioningIndex { ($0.key, $0.id) > pivot }
        return keys[start...].map(\.id)
    }

    /// 8-byte words held.
    package var words: Int { 2 * keys.count }
}
