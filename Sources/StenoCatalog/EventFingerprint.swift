import Foundation
import StenoCore

/// A 64-bit FNV-1a hash of everything the mirror stores about an occurrence, so a sync that
/// reports an unchanged event writes nothing (and revalidation sees no change).
package enum EventFingerprint {
    package static func of(_ occurrence: EventOccurrence, etag: String?) -> Int64 {
        var hash = FNV1a()
        hash.mix(etag)
        hash.mix(occurrence.iCalUID)
        hash.mix(occurrence.seriesUID)
        hash.mix(occurrence.recurrenceID)
        hash.mix(occurrence.meetingIdentity)
        hash.mix(occurrence.title)
        hash.mix(occurrence.start)
        hash.mix(occurrence.end)
        hash.mix(occurrence.timeZone)
        hash.mix(occurrence.isAllDay ? "1" : "0")
        hash.mix(occurrence.allDayStart)
        hash.mix(occurrence.allDayEnd)
        hash.mix(occurrence.status.rawValue)
        hash.mix(occurrence.organizer?.email)
        hash.mix(occurrence.organizer?.name)
        hash.mix(occurrence.location)
        hash.mix(occurrence.onlineMeetingURL)
        hash.mix(occurrence.webLink)
        for attendee in occurrence.attendees {
            hash.mix(attendee.email)
            hash.mix(attendee.name)
            hash.mix(attendee.role.rawValue)
            hash.mix(attendee.response.rawValue)
        }
        return Int64(bitPattern: hash.value)
    }

    /// The running hash: each field's bytes, then a separator (a missing text is one zero byte).
    /// A value type with mutating methods, not closures over a variable: those boxed the hash
    /// and checked exclusive access on every byte.
    private struct FNV1a {
        private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

        mutating func mix(byte: UInt8) {
            value ^= UInt64(byte)
            value &*= 0x100_0000_01b3
        }

        mutating func mix(_ text: String?) {
            guard var text else {
                mix(byte: 0)
                return mix(byte: 0x1f)
            }
            // Over the bytes in place: walking String.UTF8View cost more per byte than the hash.
            value = text.withUTF8 { bytes in
                var running = value
                for index in bytes.indices {
                    running ^= UInt64(bytes[index])
                    running &*= 0x100_0000_01b3
                }
                return running
            }
            mix(byte: 0x1f)
        }

        /// An instant mixes in as the decimal digits of its milliseconds, written out without
        /// building a string (a sync fingerprints tens of thousands of events).
        mutating func mix(_ date: Date?) {
            guard let date else { return mix(nil as String?) }
            let milliseconds = CatalogTime.milliseconds(date)
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
    }
}
