import Foundation

/// Which spans of an account's history to ask its source for, so recordings dated outside the
/// mirrored window find their meetings: the time around each recording, minus the window and
/// what was fetched before, neighbouring spans joined and each request bounded.
///
/// An import of thousands of old recordings thus costs a few requests per account (one per
/// merged span), and a span is asked for once however many recordings fall in it.
public struct HistorySpanPlanner: Sendable, Hashable {
    /// Time asked for on each side of a recording: its candidates lie within this.
    public var margin: TimeInterval
    /// Gaps between wanted spans shorter than this are asked for too: one larger request costs
    /// less than two.
    public var bridge: TimeInterval
    /// The longest span one request asks for.
    public var maximumSpan: TimeInterval

    /// A planner; by default a day around each recording, gaps under 30 days bridged, requests
    /// of at most 92 days.
    public init(margin: TimeInterval = 86_400, bridge: TimeInterval = 30 * 86_400, maximumSpan: TimeInterval = 92 * 86_400) {
        self.margin = max(0, margin)
        self.bridge = max(0, bridge)
        self.maximumSpan = max(86_400, maximumSpan)
    }

    /// The spans to ask for, sorted: around `recordedAt`, outside `window` and `fetched`.
    public func spans(around recordedAt: [Date], window: DateInterval, fetched: TimeSpanSet) -> [DateInterval] {
        let wanted = TimeSpanSet(
            recordedAt.map { DateInterval(start: $0.addingTimeInterval(-margin), end: $0.addingTimeInterval(margin)) }
                .filter { !window.contains($0.start) || !window.contains($0.end) })
        let known = fetched.union(TimeSpanSet([window]))
        return wanted.bridging(gapsShorterThan: bridge).subtracting(known).split(atMost: maximumSpan)
    }
}
