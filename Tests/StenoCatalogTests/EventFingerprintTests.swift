import Foundation
import StenoCore
import Testing

@testable import StenoCatalog
@testable import StenoSQLite

/// Fingerprints decide whether a synced event is rewritten: they must not change between
/// versions, or every event of every calendar would be rewritten once after an upgrade.
@Suite("Event fingerprints")
struct EventFingerprintTests {
    /// The fingerprint as first written: instants mixed in as decimal strings.
    static func reference(_ occurrence: EventOccurrence, etag: String?) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ text: String?) {
            for byte in (text ?? "\u{0}").utf8 {
                hash ^= UInt64(byte)
                hash &*= 0x100_0000_01b3
            }
            hash ^= 0x1f
            hash &*= 0x100_0000_01b3
        }
        func mix(_ date: Date?) { mix(date.map { String(SQLiteCatalog.milliseconds($0)) }) }
        mix(etag)
        mix(occurrence.iCalUID)
        mix(occurrence.seriesUID)
        mix(occurrence.recurrenceID)
        mix(occurrence.meetingIdentity)
        mix(occurrence.title)
        mix(occurrence.start)
        mix(occurrence.end)
        mix(occurrence.timeZone)
        mix(occurrence.isAllDay ? "1" : "0")
        mix(occurrence.allDayStart)
        mix(occurrence.allDayEnd)
        mix(occurrence.status.rawValue)
        mix(occurrence.organizer?.email)
        mix(occurrence.organizer?.name)
        mix(occurrence.location)
        mix(occurrence.onlineMeetingURL)
        mix(occurrence.webLink)
        for attendee in occurrence.attendees {
            mix(attendee.email)
            mix(attendee.name)
            mix(attendee.role.rawValue)
            mix(attendee.response.rawValue)
        }
        return Int64(bitPattern: hash)
    }

    @Test(arguments: [0.0, 0.001, 9.999, 10, 1_795_000_000.123, -1, -86_400.5, 31_536_000_000_000])
    func instantsMixAsTheirDecimalMilliseconds(seconds: Double) {
        let start = Date(timeIntervalSince1970: seconds)
        let occurrence = EventOccurrence(
            remoteID: "r", iCalUID: "u", seriesUID: "u", recurrenceID: start, meetingIdentity: "u#1", title: "Zoë's review",
            start: start, end: start.addingTimeInterval(1800), timeZone: "Europe/Berlin",
            attendees: [Attendee(email: "bob@example.com", name: "Bøb", response: .accepted)])
        #expect(EventFingerprint.of(occurrence, etag: "\"1\"") == Self.reference(occurrence, etag: "\"1\""))
        var single = occurrence
        single.recurrenceID = nil
        #expect(EventFingerprint.of(single, etag: nil) == Self.reference(single, etag: nil))
    }
}
