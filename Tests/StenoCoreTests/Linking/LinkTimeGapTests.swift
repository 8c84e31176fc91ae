import Foundation
import StenoCore
import Testing

/// How far apart a recording and a meeting linked by hand are, and how that reads.
@Suite("Link time gap: a manual link's recording and meeting apart in time")
struct LinkTimeGapTests {
    let policy = LinkPolicy()

    func gap(recordingAt hour: Double, minutes: Double, meetingAt meetingHour: Double, meetingMinutes: Double = 60) -> LinkTimeGap? {
        let meetingStart = LinkFixtures.at(meetingHour)
        return LinkTimeGap(
            recordedAt: LinkFixtures.at(hour), duration: minutes * 60, meetingStart: meetingStart,
            meetingEnd: meetingStart.addingTimeInterval(meetingMinutes * 60), policy: policy)
    }

    @Test func overlapOrANearMissWithinTheToleranceIsNoGap() {
        #expect(gap(recordingAt: 10, minutes: 30, meetingAt: 10) == nil)
        #expect(gap(recordingAt: 11.2, minutes: 5, meetingAt: 10) == nil, "12 minutes after the end: within 15")
        #expect(gap(recordingAt: 9.7, minutes: 5, meetingAt: 10) == nil, "ending 13 minutes before the start: within 15")
    }

    @Test func aGapBeyondTheToleranceIsMeasuredBetweenTheNearEnds() throws {
        let after = try #require(gap(recordingAt: 14, minutes: 40, meetingAt: 10))
        #expect(after.seconds == 3 * 3600 && after.distance == "3 h")
        let before = try #require(gap(recordingAt: 6, minutes: 40, meetingAt: 10))
        #expect(before.seconds == 3 * 3600 + 20 * 60 && before.distance == "3 h 20 min")
        #expect(gap(recordingAt: 11.5, minutes: 0, meetingAt: 10)?.distance == "30 min")
        #expect(gap(recordingAt: 10 + 24 + 5, minutes: 0, meetingAt: 10)?.distance == "1 day 4 h")
        #expect(gap(recordingAt: 11 + 31 * 24, minutes: 0, meetingAt: 10)?.distance == "31 days")
    }

    @Test func timesReadInUTCWithTheEndDateOnlyWhenItDiffers() {
        let day = LinkFixtures.day
        #expect(LinkTimeGap.describe(DateInterval(start: day.addingTimeInterval(14 * 3600 + 300), duration: 35 * 60)) == "2026-11-20 14:05–14:40 UTC")
        #expect(LinkTimeGap.describe(DateInterval(start: day.addingTimeInterval(14 * 3600 + 300), duration: 3.5)) == "2026-11-20 14:05 UTC")
        #expect(LinkTimeGap.describe(DateInterval(start: day.addingTimeInterval(23 * 3600), duration: 2 * 3600)) == "2026-11-20 23:00–2026-11-21 01:00 UTC")
    }
}
