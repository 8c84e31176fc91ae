/// Vorbis comment blocks (FLAC, Ogg Vorbis, Ogg Opus, and other Xiph containers).
///
/// Layout: vendor length (u32 LE), vendor string, comment count (u32 LE), then that many
/// length-prefixed "KEY=value" strings. Everything is bounded by the buffer it is given;
/// a comment block cut short just yields the comments that are complete.
enum VorbisComment {
    /// Adds the comments in `b` (starting at `start`) to `tags`, keys lowercased.
    static func read(_ b: [UInt8], from start: Int, into tags: inout TagSet) {
        var p = start
        guard let vendorLen = b.le(p, 4), vendorLen <= UInt64(b.count) else { return }
        p += 4
        guard p + Int(vendorLen) <= b.count else { return }
        tags.add("vendor", TextDecoding.utf8(b[p..<(p + Int(vendorLen))]))
        p += Int(vendorLen)
        guard let count = b.le(p, 4) else { return }
        p += 4
        var n: UInt64 = 0
        // Each comment consumes at least 4 bytes, so the count cannot run past the buffer.
        while n < count, p + 4 <= b.count {
            n += 1
            guard let len = b.le(p, 4), len <= UInt64(b.count - p - 4) else { return }
            p += 4
            let entry = b[p..<(p + Int(len))]
            p += Int(len)
            guard let eq = entry.firstIndex(of: 0x3D) else { continue }
            let key = TextDecoding.utf8(entry[entry.startIndex..<eq]).lowercased()
            let value = TextDecoding.utf8(entry[(eq + 1)...])
            switch key {
            case "description": tags.add("comment", value)
            default: tags.add(key, value)
            }
        }
    }
}
