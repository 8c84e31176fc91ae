import Foundation
import StenoCore

/// A 64-bit FNV-1a hash of everything the mirror stores about an occurrence, so a sync that
/// reports an unchanged event writes nothing (and revalidation sees no change).
enum EventFingerprint {
    static func of(_ occurrence: EventOccurrence, etag: String?) -> Int64 {
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
}
