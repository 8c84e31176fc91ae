import Foundation

/// An ID3v2 tag (versions 2.2, 2.3 and 2.4) in front of MP3 (or other) audio.
///
/// Only text frames Steno uses are decoded: title, artist, album, dates (TDRC; TYER +
/// TDAT + TIME), comment, encoder and TXXX user frames (kept under their lowercased
/// description, e.g. "icaluid"). At most ``MediaLimits/maxMetadataBytes`` of the tag are
/// read; embedded pictures beyond that are skipped by offset.
struct ID3Tag {
    /// Header + body (+ footer) size: where the audio starts.
    var totalSize: UInt64
    /// Decoded text tags.
    var tags = TagSet()
    private var year: String?
    private var dayMonth: String?
    private var hourMinute: String?

    /// Folds a later tag's values in (first value per key wins).
    mutating func merge(_ other: ID3Tag) {
        totalSize += other.totalSize
        for (k, v) in other.tags.values { tags.add(k, v) }
    }

    /// Recording time from TDRC, or TYER + TDAT + TIME (ID3v2.3); nil for a bare year.
    var creationTime: Date? {
        if let d = tags.values["date"], let t = MediaDate.parse(d) { return t }
        guard let y = year, y.count == 4, let dm = dayMonth, dm.count == 4 else { return nil }
        let day = dm.prefix(2), month = dm.suffix(2)
        var s = "\(y)-\(month)-\(day)"
        if let hm = hourMinute, hm.count == 4 { s += "T\(hm.prefix(2)):\(hm.suffix(2))" }
        return MediaDate.parse(s)
    }

    static func read(_ src: some ByteSource, at offset: UInt64) throws(MediaError) -> ID3Tag {
        let h = try src.readExactly(at: offset, count: 10, format: "ID3v2", what: "tag header")
        let major = h[3]
        let flags = h[5]
        guard h[6] | h[7] | h[8] | h[9] < 0x80 else {
            throw MediaError.invalid("ID3v2", at: offset + 6, "tag size is not a sync-safe integer")
        }
        let size = UInt64(h[6]) << 21 | UInt64(h[7]) << 14 | UInt64(h[8]) << 7 | UInt64(h[9])
        let total = 10 + size + (major >= 4 && flags & 0x10 != 0 ? 10 : 0)
        guard total <= src.remaining(after: offset) else {
            throw MediaError.truncated("ID3v2", at: offset, "tag at offset \(offset) claims \(total) bytes but the file ends at \(src.size)")
        }
        var tag = ID3Tag(totalSize: total)
        guard (2...4).contains(major) else { return tag }  // unknown version: skip it whole
        var body = try src.readExactly(at: offset + 10, count: Int(min(size, UInt64(MediaLimits.maxMetadataBytes))), format: "ID3v2", what: "tag body")
        if flags & 0x80 != 0, major < 4 { body = unsynchronise(body[...]) }
        var p = 0
        if flags & 0x40 != 0, major >= 3 {
            guard let ext = body.be(0, 4) else { return tag }
            let extSize = major == 3 ? Int(ext) + 4 : syncsafe(ext)
            p = min(extSize, body.count)
        }
        let idLen = major == 2 ? 3 : 4
        let headerLen = major == 2 ? 6 : 10
        // Each frame advances p by at least its header; padding (a zero id byte) ends the list.
        while p + headerLen <= body.count, body[p] != 0 {
            let id = fourCCString(body[p..<(p + idLen)])
            let raw = body.be(p + idLen, major == 2 ? 3 : 4) ?? 0
            let fsize = major == 4 ? syncsafe(raw) : Int(raw)
            let fflags = major == 2 ? 0 : Int(body.be(p + 8, 2) ?? 0)
            let start = p + headerLen
            guard fsize > 0, fsize <= body.count - start else { break }
            var data = Array(body[start..<(start + fsize)])
            p = start + fsize
            if major == 4 {
                if fflags & 0x000C != 0 { continue }  // compressed or encrypted
                if fflags & 0x0001 != 0 { data = Array(data.dropFirst(4)) }  // data length indicator
                if fflags & 0x0002 != 0 || flags & 0x80 != 0 { data = unsynchronise(data[...]) }
            } else if major == 3, fflags & 0x00C0 != 0 {
                continue
            }
            tag.frame(id, data)
        }
        return tag
    }

    private mutating func frame(_ id: String, _ d: [UInt8]) {
        switch id {
        case "TIT2", "TT2": tags.add("title", Self.text(d))
        case "TPE1", "TP1": tags.add("artist", Self.text(d))
        case "TALB", "TAL": tags.add("album", Self.text(d))
        case "TDRC", "TDRL", "TDOR": tags.add("date", Self.text(d))
        case "TYER", "TYE": year = Self.text(d); tags.add("year", year ?? "")
        case "TDAT", "TDA": dayMonth = Self.text(d)
        case "TIME", "TIM": hourMinute = Self.text(d)
        case "TSSE", "TSS": tags.add("encoder", Self.text(d))
        case "TENC", "TEN": tags.add("encoded_by", Self.text(d))
        case "COMM", "COM":
            guard d.count > 4 else { return }
            let (_, rest) = Self.splitTerminated(d, from: 4, encoding: d[0])
            tags.add("comment", Self.decode(d[rest...], encoding: d[0]))
        case "TXXX", "TXX":
            guard d.count > 1 else { return }
            let (desc, rest) = Self.splitTerminated(d, from: 1, encoding: d[0])
            tags.add(desc, Self.decode(d[rest...], encoding: d[0]))
        default: break
        }
    }

    /// Text frame: encoding byte then text (first of several NUL-separated values).
    private static func text(_ d: [UInt8]) -> String {
        guard let enc = d.first else { return "" }
        return decode(d[1...], encoding: enc)
    }

    private static func decode(_ b: ArraySlice<UInt8>, encoding: UInt8) -> String {
        switch encoding {
        case 1: return TextDecoding.utf16(b, bigEndian: false)
        case 2: return TextDecoding.utf16(b, bigEndian: true)
        case 3: return TextDecoding.utf8(b)
        default: return TextDecoding.latin1(b)
        }
    }

    /// A terminated string starting at `from` and the index after its terminator.
    private static func splitTerminated(_ d: [UInt8], from: Int, encoding: UInt8) -> (String, Int) {
        let wide = encoding == 1 || encoding == 2
        var i = from
        while i < d.count {
            if wide {
                if i + 1 < d.count, d[i] == 0, d[i + 1] == 0 { return (decode(d[from..<i], encoding: encoding), i + 2) }
                i += 2
            } else {
                if d[i] == 0 { return (decode(d[from..<i], encoding: encoding), i + 1) }
                i += 1
            }
        }
        return (decode(d[from...], encoding: encoding), d.count)
    }

    private static func syncsafe(_ v: UInt64) -> Int {
        Int((v & 0x7F) | ((v >> 8) & 0x7F) << 7 | ((v >> 16) & 0x7F) << 14 | ((v >> 24) & 0x7F) << 21)
    }

    /// Undoes ID3 unsynchronisation: every 0xFF 0x00 becomes 0xFF.
    private static func unsynchronise(_ b: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(b.count)
        var prevFF = false
        for c in b {
            if prevFF && c == 0 { prevFF = false; continue }
            out.append(c)
            prevFF = c == 0xFF
        }
        return out
    }
}
