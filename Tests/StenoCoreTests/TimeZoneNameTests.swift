import Foundation
import StenoCore
import Testing

/// The zones `--tz` accepts and the offset every printed time carries.
@Suite("Time zone names")
struct TimeZoneNameTests {
    @Test func namesOffsetsAndUTC() {
        #expect(TimeZoneName.zone("Europe/Paris")?.identifier == "Europe/Paris")
        #expect(TimeZoneName.zone("UTC")?.secondsFromGMT() == 0)
        #expect(TimeZoneName.zone("z")?.secondsFromGMT() == 0)
        #expect(TimeZoneName.zone("+01:00")?.secondsFromGMT() == 3600)
        #expect(TimeZoneName.zone("+0530")?.secondsFromGMT() == 19_800)
        #expect(TimeZoneName.zone("-05")?.secondsFromGMT() == -18_000)
        for wrong in ["", "Mars/Olympus", "+25:00", "+01:60", "+1", "+01::00", "Europe/Paris/Left", "+０１:00"] {
            #expect(TimeZoneName.zone(wrong) == nil, "\(wrong)")
        }
    }

    @Test func offsetsFollowSummerTime() throws {
        let paris = try #require(TimeZoneName.zone("Europe/Paris"))
        #expect(TimeZoneName.offset(paris, at: Date(timeIntervalSince1970: 1_795_600_000)) == "+01:00")  // November 2026
        #expect(TimeZoneName.offset(paris, at: Date(timeIntervalSince1970: 1_782_000_000)) == "+02:00")  // June 2026
        #expect(TimeZoneName.offset(try #require(TimeZoneName.zone("UTC")), at: Date()) == "+00:00")
        #expect(TimeZoneName.offset(try #require(TimeZoneName.zone("-03:30")), at: Date()) == "-03:30")
    }
}
