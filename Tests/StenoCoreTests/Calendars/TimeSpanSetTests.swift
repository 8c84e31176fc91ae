import Foundation
import StenoCore
import Testing

/// Merging, cutting and bridging time ranges: what is asked of a calendar source.
@Suite("Time span sets")
struct TimeSpanSetTests {
    let origin = Date(timeIntervalSince1970: 1_700_000_000)

    /// `[a, b)` days after the origin.
    func days(_ a: Double, _ b: Double) -> DateInterval {
        DateInterval(start: origin.addingTimeInterval(a * 86_400), end: origin.addingTimeInterval(b * 86_400))
    }

    @Test("overlapping and touching intervals merge; disjoint ones stay apart, sorted")
    func union() {
        let set = TimeSpanSet([days(10, 12), days(0, 2), days(1, 3), days(3, 4), days(20, 20)])
        #expect(set.spans == [days(0, 4), days(10, 12)])
        let wider = set.union(TimeSpanSet([days(2, 11)]))
        #expect(wider.spans == [days(0, 12)])
    }

    @Test("subtracting leaves the parts not yet asked for: a slid window's new ends")
    func subtracting() {
        let old = TimeSpanSet([days(0, 100)])
        let new = TimeSpanSet([days(7, 107)])
        #expect(new.subtracting(old).spans == [days(100, 107)])
        // The window grew on both sides.
        #expect(TimeSpanSet([days(-5, 110)]).subtracting(old).spans == [days(-5, 0), days(100, 110)])
        // A hole punched in the middle, and a cut covering everything.
        #expect(old.subtracting(TimeSpanSet([days(40, 60)])).spans == [days(0, 40), days(60, 100)])
        #expect(old.subtracting(TimeSpanSet([days(-1, 101)])).isEmpty)
        #expect(old.covers(days(10, 20)))
        #expect(!old.covers(days(90, 101)))
    }

    @Test("bridging fills short gaps only; splitting bounds each request")
    func bridgingAndSplitting() {
        let set = TimeSpanSet([days(0, 1), days(3, 4), days(30, 31)])
        #expect(set.bridging(gapsShorterThan: 7 * 86_400).spans == [days(0, 4), days(30, 31)])
        #expect(set.bridging(gapsShorterThan: 86_400).spans == set.spans)
        #expect(TimeSpanSet([days(0, 25)]).split(atMost: 10 * 86_400) == [days(0, 10), days(10, 20), days(20, 25)])
    }
}
