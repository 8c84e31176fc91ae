/// ISO base media / QuickTime box headers: 32-bit sizes, 64-bit `largesize` (size 1) and
/// size 0 ("extends to the end of the enclosing box or file").
struct MP4Box {
    /// Four-character type, e.g. "moov".
    var type: String
    /// Offset of the box's first header byte.
    var start: UInt64
    /// Offset of the first byte after the header.
    var body: UInt64
    /// Offset one past the box's last byte.
    var end: UInt64

    var bodySize: UInt64 { end - body }

    static let name = "MP4"

    /// Reads the box header at `pos`, which must end by `limit` (the parent's end).
    static func read(_ src: some ByteSource, at pos: UInt64, limit: UInt64) throws(MediaError) -> MP4Box {
        let h = try src.readExactly(at: pos, count: Int(min(16, limit - pos)), format: name, what: "box header at offset \(pos)")
        guard h.count >= 8, let size32 = h.be(0, 4) else {
            throw MediaError.truncated(name, at: pos, "box header at offset \(pos) needs 8 bytes but the enclosing space ends at \(limit)")
        }
        let type = fourCCString(h[4..<8])
        var header: UInt64 = 8
        var size = size32
        if size32 == 1 {
            guard let large = h.be(8, 8) else {
                throw MediaError.truncated(name, at: pos, "box '\(type)' at offset \(pos) has a 64-bit size but the header is cut off")
            }
            header = 16
            size = large
        } else if size32 == 0 {
            size = limit - pos
        }
        guard size >= header else {
            throw MediaError.invalid(name, at: pos, "box '\(type)' at offset \(pos) claims \(size) bytes, less than its own header")
        }
        guard size <= limit - pos else {
            if limit == src.size {
                throw MediaError.truncated(name, at: pos, "box '\(type)' at offset \(pos) claims \(size) bytes but the file ends at \(src.size)")
            }
            throw MediaError.invalid(name, at: pos, "box '\(type)' at offset \(pos) claims \(size) bytes, beyond its parent which ends at \(limit)")
        }
        return MP4Box(type: type, start: pos, body: pos + header, end: pos + size)
    }

    /// The top-level box at `pos` whose size runs past the end of the file, ending at the
    /// file's end, with the size it claims; nil when its header itself is cut off.
    static func cutShort(_ src: some ByteSource, at pos: UInt64) throws(MediaError) -> (box: MP4Box, claimedSize: UInt64)? {
        let h = try src.read(at: pos, count: 16)
        guard h.count >= 8, let size32 = h.be(0, 4) else { return nil }
        let large = size32 == 1 ? h.be(8, 8) : nil
        guard size32 != 1 || large != nil else { return nil }
        let header: UInt64 = large == nil ? 8 : 16
        guard pos + header <= src.size else { return nil }
        return (MP4Box(type: fourCCString(h[4..<8]), start: pos, body: pos + header, end: src.size), large ?? size32)
    }

    /// The child boxes in `range` (a container's body), at most 10,000 of them.
    static func children(_ src: some ByteSource, from: UInt64, to end: UInt64) throws(MediaError) -> [MP4Box] {
        var out: [MP4Box] = []
        var pos = from
        // Each box is at least 8 bytes, so this advances; the cap bounds pathological files.
        while pos + 8 <= end, out.count < 10_000 {
            let box = try read(src, at: pos, limit: end)
            out.append(box)
            pos = box.end
        }
        return out
    }

    /// The box body, or its first `cap` bytes.
    func bytes(_ src: some ByteSource, cap: Int = MediaLimits.maxMetadataBytes) throws(MediaError) -> [UInt8] {
        try src.readExactly(at: body, count: Int(min(bodySize, UInt64(cap))), format: MP4Box.name, what: "box '\(type)' at offset \(start)")
    }
}
