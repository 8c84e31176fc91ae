import Foundation
import StenoCore
import Testing

/// The spans of history asked for recordings outside the mirrored window.
@Suite("History span planning")
struct HistorySpanPlannerTests {
    let now = Date(timeIntervalSince1970: 1_790_000_000)
    var window: DateInterval { DateInterval(start: now.addingTimeInterval(-180 * 86_400), end: now.addingTimeInterval(365 * 86_400)) }

    func daysAgo(_ days: Double) -> Date { now.addingTimeInterval(-days * 86_400) }

    @Test("recordings inside the window ask for nothing; one outside asks for a day around it")
    func aroundOneRecording() {
        let planner = HistorySpanPlanner()
        #expect(planner.spans(around: [daysAgo(10), daysAgo(100)], window: window, fetched: TimeSpanSet()).isEmpty)
        let old = daysAgo(400)
        #expect(planner.spans(around: [old], window: window, fetched: TimeSpanSet())
            == [DateInterval(start: old.addingTimeInterval(-86_400), end: old.addingTimeInterval(86_400))])
        // Near the window's edge: only the part outside it.
        let edge = window.start.addingTimeInterval(3600)
        #expect(planner.spans(around: [edge], window: window, fetched: TimeSpanSet())
            == [DateInterval(start: edge.addingTimeInterval(-86_400), end: window.start)])
    }

    @Test("2,000 recordings over two years: few merged spans, each at most the longest request, none asked twice")
    func manyRecordings() {
        let planner = HistorySpanPlanner()
        // Weekdays over two years before the window, several a day.
        let recordings = (0..<2000).map { index in daysAgo(181 + Double(index % 520) * 1.4 + Double(index / 520) * 0.1) }
        let spans = planner.spans(around: recordings, window: window, fetched: TimeSpanSet())
        #expect(spans.count <= 10)
        #expect(spans.allSatisfy { $0.duration <= planner.maximumSpan })
        #expect(recordings.allSatisfy { date in spans.contains { $0.contains(date) } })
        // Asked again after those were fetched: nothing.
        #expect(planner.spans(around: recordings, window: window, fetched: TimeSpanSet(spans)).isEmpty)
    }

    @Test("recordings far apart are asked for separately; close ones share a request")
    func bridging() {
        let planner = HistorySpanPlanner()
        let spans = planner.spans(around: [daysAgo(400), daysAgo(410), daysAgo(3 * 365)], window: window, fetched: TimeSpanSet())
        #expect(spans.count == 2)
        #expect(spans.first?.contains(daysAgo(3 * 365)) == true)
        #expect(spans.last.map { $0.contains(daysAgo(400)) && $0.contains(daysAgo(410)) } == true)
    }
}
