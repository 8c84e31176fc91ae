import Foundation

/// A member's held meetings' titles, in the order of their held keys (``MeetingKey``), for
/// `meetings --title TEXT` tested in memory as SQLite's `LIKE '%TEXT%'` tests it.
///
/// A member's title page handed its statement every held meeting of the range, and each was
/// looked up by id for its title (a few thousand lookups for a text few of them hold). Held
/// with their sets, the titles are read once per catalog state.
package struct HeldMeetingTitles: Sendable {
    /// Every title's UTF-8 bytes up to its first NUL (where SQLite's `LIKE` stops reading),
    /// one after the other in held order; title `i` ends at `ends[i]`.
    private let bytes: [UInt8]
    private let ends: [Int32]

    /// Holds `titles`, one per held key, in the keys' order.
    package init(_ titles: [String]) {
        var bytes: [UInt8] = []
        var ends: [Int32] = []
        ends.reserveCapacity(titles.count)
        for title in titles {
            bytes.append(contentsOf: title.utf8.prefix { $0 != 0 })
            ends.append(Int32(clamping: bytes.count))
        }
        self.bytes = bytes
        self.ends = ends
    }

    /// How many titles are held.
    package var count: Int { ends.count }

    /// The positions of `among` (held positions) whose title contains `text` (a text
    /// ``canAnswer(_:)``; see ``contains(_:_:)``), in the order given.
    package func positions(containing text: String, among candidates: some Sequence<Int>) -> [Int32] {
        let needle = Self.folded(text)
        return bytes.withUnsafeBufferPointer { all in
            candidates.lazy.filter { ends.indices.contains($0) }.filter { position in
                let start = position == 0 ? 0 : Int(ends[position - 1])
                return Self.contains(UnsafeBufferPointer(rebasing: all[start..<Int(ends[position])]), folded: needle)
            }.map(Int32.init)
        }
    }

    /// What holding the titles costs in 8-byte words (``VisibleSetCache``'s unit).
    package var words: Int { ends.count / 2 + bytes.count / 8 }

    /// Whether `text` is one whose `LIKE '%…%'` these titles answer: any text without a NUL.
    /// SQLite reads a pattern only up to its first NUL, so a text holding one loses the
    /// pattern's closing `%` (it then asks for titles that end with the text's start): such a
    /// page keeps the statement's own test.
    package static func canAnswer(_ text: String) -> Bool { !text.utf8.contains(0) }

    /// Whether `title` contains `text` (a text ``canAnswer(_:)``) as
    /// `title LIKE '%' || escaped(text) || '%' ESCAPE '\\'` answers in SQLite: ASCII letters
    /// compare in either case, every other character exactly, and the title ends at a NUL.
    package static func contains(_ title: String, _ text: String) -> Bool {
        let bytes = Array(title.utf8.prefix { $0 != 0 })
        return bytes.withUnsafeBufferPointer { contains($0, folded: folded(text)) }
    }

    /// Substring search over bytes, ASCII letters folded. Bytes of one UTF-8 encoding compare
    /// as its characters do: a character's bytes never start inside another's.
    private static func contains(_ title: UnsafeBufferPointer<UInt8>, folded needle: [UInt8]) -> Bool {
        guard !needle.isEmpty else { return true }
        guard title.count >= needle.count else { return false }
        let first = needle[0]
        for start in 0...(title.count - needle.count) where fold(title[start]) == first {
            var matched = 1
            while matched < needle.count, fold(title[start + matched]) == needle[matched] { matched += 1 }
            if matched == needle.count { return true }
        }
        return false
    }

    /// `text`'s bytes, ASCII letters folded.
    private static func folded(_ text: String) -> [UInt8] { text.utf8.map(fold) }

    @inline(__always)
    private static func fold(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }
}
