import Foundation
import StenoCore

/// A 64-bit FNV-1a hash of everything the mirror stores about an occurrence, so a sync that
/// reports an unchanged event writes nothing (and revalidation sees no change).
enum EventFingerprint {
    static func of(_ occurrence: EventOccurrence, etag: String?) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(byte: UInt8) {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        func mix(_ text: String?) {
            guard var text else {
                mix(byte: 0)
                return mix(byte: 0x1f)
            }
            // Over the bytes in place: walking String.UTF8View costs more per byte than the hash.
            hash = text.withUTF8 { bytes in
                var running = hash
                for byte in bytes {
                    running ^= UInt64(byte)
                    running &*= 0x100_0000_01b3
                }
                return running
            }
            mix(byte: 0x1f)
        }
        // An instant mixes in as the decimal digits of its milliseconds, written out without
        // building a string (a sync fingerprints tens of thousands of events).
        func mix(_ date: Date?) {
            guard let date else { return mix(nil as String?) }
            let milliseconds = SQLiteCatalog.milliseconds(date)
            if milliseconds < 0 { mix(byte: UInt8(ascii: "-")) }
            var rest = milliseconds.magnitude
            var divisor: UInt64 = 1
            while rest / divisor >= 10 { divisor *= 10 }
            while divisor > 0 {
                mix(byte: UInt8(ascii: "0") + UInt8(rest / divisor))
                rest %= divisor
                divisor /= 10
            }
            mix(byte: 0x1f)
        }
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
