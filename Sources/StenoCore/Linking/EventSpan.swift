import Foundation

/// Only the time of a mirrored event: what bulk linking scans to find an owner's events near
/// each recording before it reads the few that matter in full.
public struct EventSpan: Sendable, Hashable {
    public var eventID: Int64
    public var start: Date
    public var end: Date

    public init(eventID: Int64, start: Date, end: Date) {
        self.eventID = eventID
        self.start = start
        self.end = end
    }
}

/// Event spans sorted by start, for finding those overlapping a window without a query.
public struct EventSpanIndex: Sendable {
    let sorted: [EventSpan]
    /// The longest span, so a search can start early enough.
    let longest: TimeInterval

    public init(_ spans: [EventSpan]) {
        sorted = spans.sorted { ($0.start, $0.eventID) < ($1.start, $1.eventID) }
        longest = spans.map { $0.end.timeIntervalSince($0.start) }.max() ?? 0
    }

    /// The ids of events with start < window.end and end > window.start, by start.
    public func overlapping(_ window: DateInterval) -> [Int64] {
        let earliest = window.start.addingTimeInterval(-longest)
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle].start < earliest { low = middle + 1 } else { high = middle }
        }
        var result: [Int64] = []
        var index = low
        while index < sorted.count, sorted[index].start < window.end {
            if sorted[index].end > window.start { result.append(sorted[index].eventID) }
            index += 1
        }
        return result
    }
}
