import Foundation

/// A set of instants as sorted, disjoint, non-touching half-open intervals: what a calendar
/// source was already asked about, and what is left to ask.
///
/// Providers ask for time ranges (a CalDAV `time-range`, a Graph `calendarView`); keeping
/// the ranges merged makes every instant asked for at most once and every request as large
/// as the gaps between wanted instants allow.
public struct TimeSpanSet: Sendable, Hashable {
    /// The intervals, sorted by start; none overlap or touch.
    public private(set) var spans: [DateInterval]

    /// The empty set.
    public init() { spans = [] }

    /// The union of `intervals` (empty ones are dropped).
    public init<S: Sequence>(_ intervals: S) where S.Element == DateInterval {
        spans = []
        for interval in intervals { formUnion(interval) }
    }

    /// Whether no instant is in the set.
    public var isEmpty: Bool { spans.isEmpty }

    /// Adds the instants of `interval`.
    public mutating func formUnion(_ interval: DateInterval) {
        guard interval.duration > 0 else { return }
        var start = interval.start
        var end = interval.end
        var kept: [DateInterval] = []
        kept.reserveCapacity(spans.count + 1)
        for span in spans {
            if span.end < start || span.start > end {
                kept.append(span)
            } else {
                start = min(start, span.start)
                end = max(end, span.end)
            }
        }
        kept.append(DateInterval(start: start, end: end))
        spans = kept.sorted { $0.start < $1.start }
    }

    /// The instants of this set and of `other`.
    public func union(_ other: TimeSpanSet) -> TimeSpanSet {
        var result = self
        for span in other.spans { result.formUnion(span) }
        return result
    }

    /// The instants of this set that are not in `other`.
    public func subtracting(_ other: TimeSpanSet) -> TimeSpanSet {
        var result: [DateInterval] = []
        for span in spans {
            var pieces = [span]
            for cut in other.spans where cut.end > span.start && cut.start < span.end {
                pieces = pieces.flatMap { piece -> [DateInterval] in
                    guard cut.end > piece.start, cut.start < piece.end else { return [piece] }
                    var left: [DateInterval] = []
                    if cut.start > piece.start { left.append(DateInterval(start: piece.start, end: cut.start)) }
                    if cut.end < piece.end { left.append(DateInterval(start: cut.end, end: piece.end)) }
                    return left
                }
            }
            result += pieces
        }
        var set = TimeSpanSet()
        set.spans = result.filter { $0.duration > 0 }
        return set
    }

    /// Whether every instant of `interval` is in the set.
    public func covers(_ interval: DateInterval) -> Bool {
        TimeSpanSet([interval]).subtracting(self).isEmpty
    }

    /// The set with gaps shorter than `gap` filled: fewer, larger requests where asking for a
    /// little more costs less than another round trip.
    public func bridging(gapsShorterThan gap: TimeInterval) -> TimeSpanSet {
        var result = TimeSpanSet()
        guard var current = spans.first else { return result }
        var merged: [DateInterval] = []
        for span in spans.dropFirst() {
            if span.start.timeIntervalSince(current.end) < gap {
                current = DateInterval(start: current.start, end: max(current.end, span.end))
            } else {
                merged.append(current)
                current = span
            }
        }
        merged.append(current)
        result.spans = merged
        return result
    }

    /// The set cut into intervals no longer than `length` (a source may bound a range query).
    public func split(atMost length: TimeInterval) -> [DateInterval] {
        guard length > 0 else { return spans }
        var pieces: [DateInterval] = []
        for span in spans {
            var start = span.start
            while start < span.end {
                let end = min(span.end, start.addingTimeInterval(length))
                pieces.append(DateInterval(start: start, end: end))
                start = end
            }
        }
        return pieces
    }
}
