import Foundation

/// MP4, M4A and QuickTime MOV.
///
/// Reads `mvhd` (timescale, duration, creation time — 0, i.e. 1904-01-01, means none),
/// the first sound track's `mdhd`, `elst` and `stsd` (codec; channels and rate from the
/// AAC AudioSpecificConfig or ALAC cookie rather than the sample entry's placeholders),
/// and `udta`/`meta`/`ilst` tags. Sample tables and `mdat` are never read.
enum MP4Parser {
    private static let name = "MP4"

    struct Track {
        var isSound = false
        var trackID: UInt64 = 0
        var timescale: UInt64 = 0
        var duration: UInt64 = 0
        var editDuration: UInt64?  // in movie timescale
        var editMediaTime: UInt64 = 0  // first edit's start, in media timescale (AAC priming)
        var codec: String?
        var sampleRate: Int?
        var channels: Int?
        var bits: Int?
        /// AAC audio object type from the AudioSpecificConfig (2 = LC).
        var audioObjectType: Int?
        /// The track's `stbl`, read only when the file was cut short.
        var sampleTable: MP4Box?
    }

    static func parse(_ src: some ByteSource, at start: UInt64) throws(MediaError) -> MediaInfo {
        var movieTimescale: UInt64 = 0
        var movieDuration: UInt64 = 0
        var created: Date?
        var tags = TagSet()
        var sound: Track?
        var sawMoov = false
        var fragments = MP4Fragments()
        var pos = start
        var boxCount = 0
        var mediaDataBytes: UInt64 = 0
        var previousType = ""
        // Top-level walk without collecting (long fragmented files have many boxes);
        // every box is at least 8 bytes, so this advances.
        // A media data box cut short (the file's end) ends the walk: what it holds is kept.
        var cutMediaData: (claimed: UInt64, held: UInt64)?
        // Bytes after the last whole box once the movie header and media data were read
        // (a tool appending a few bytes, a copy padded to a block): decoders play the file
        // whole, so they are ignored with a warning rather than taken for a cut.
        var trailingBytesAt: UInt64?
        while pos + 8 <= src.size, boxCount < 10_000_000 {
            boxCount += 1
            let box: MP4Box
            do {
                box = try MP4Box.read(src, at: pos, limit: src.size)
            } catch let error where error.kind == .truncated || error.kind == .invalid {
                let cut = error.kind == .truncated ? try MP4Box.cutShort(src, at: pos) : nil
                guard let cut, cut.box.type == "mdat", sawMoov else {
                    guard sawMoov, mediaDataBytes > 0 else { throw error }
                    trailingBytesAt = pos
                    break
                }
                mediaDataBytes &+= cut.box.bodySize
                cutMediaData = (cut.claimedSize, cut.box.end - cut.box.start)
                // The fragment this media data belongs to is not whole: its samples do not count.
                if previousType == "moof" { fragments.dropLast() }
                break
            }
            pos = box.end
            defer { previousType = box.type }
            if box.type == "mdat" { mediaDataBytes &+= box.end - box.body }
            if box.type == "moof" {
                if let sound { try fragments.add(src, moof: box, track: sound.trackID) }
                continue
            }
            guard box.type == "moov", !sawMoov else { continue }
            sawMoov = true
            for child in try MP4Box.children(src, from: box.body, to: box.end) {
                switch child.type {
                case "mvhd":
                    let b = try child.bytes(src, cap: 32)
                    let v1 = b.first == 1
                    let t = (v1 ? b.be(4, 8) : b.be(4, 4)) ?? 0
                    movieTimescale = (v1 ? b.be(20, 4) : b.be(12, 4)) ?? 0
                    movieDuration = (v1 ? b.be(24, 8) : b.be(16, 4)) ?? 0
                    if t != 0 { created = Date(timeIntervalSince1970: Double(t) - MediaDate.mp4EpochOffset) }
                case "trak":
                    if sound == nil {
                        let t = try track(src, child)
                        if t.isSound { sound = t }
                    }
                case "udta":
                    try userData(src, child, into: &tags)
                case "meta":
                    try meta(src, child, into: &tags)
                case "mvex":
                    try fragments.readDefaults(src, mvex: child)
                default: break
                }
            }
        }
        guard sawMoov else { throw MediaError.invalid(name, at: start, "no 'moov' box (movie header) in the file") }
        // No media data at all, or bytes too few for a box header ending the file: the file
        // was cut at (or just after) the end of its movie header.
        if cutMediaData == nil, trailingBytesAt == nil, pos < src.size, mediaDataBytes > 0 { trailingBytesAt = pos }
        if cutMediaData == nil, trailingBytesAt == nil, mediaDataBytes == 0 { cutMediaData = (0, 0) }
        guard var sound else { throw MediaError(.notAudio, offset: start, "MP4/MOV file has no sound track") }
        guard movieTimescale > 0 || sound.timescale > 0 else {
            throw MediaError.invalid(name, at: start, "timescale is 0")
        }
        // What a decoder outputs: every sample of the track after the edit list's start
        // (AAC priming). FFmpeg does not cut the last frame's padding, so neither do we.
        var duration: Double
        let fragmented = sound.duration == 0 && fragments.end != nil
        if sound.duration == 0, let end = fragments.end {
            sound.duration = end  // fragmented MP4 (e.g. browser recordings): moov has no samples
        }
        if sound.timescale > 0, sound.duration > 0 {
            var total = sound.duration
            if sound.codec == "aac", sound.audioObjectType == 2 {
                // A decoder outputs whole 1024-sample AAC frames; the track's last frame is
                // declared short by some writers but decodes whole.
                total = (total &+ 1023) / 1024 &* 1024
            }
            let media = total > sound.editMediaTime ? total - sound.editMediaTime : total
            duration = Double(media) / Double(sound.timescale)
        } else if let edit = sound.editDuration, edit > 0, movieTimescale > 0 {
            duration = Double(edit) / Double(movieTimescale)
        } else if movieTimescale > 0 {
            duration = Double(movieDuration) / Double(movieTimescale)
        } else {
            duration = 0
        }
        if duration == 0, movieTimescale > 0, movieDuration > 0 { duration = Double(movieDuration) / Double(movieTimescale) }
        var warnings: [String] = []
        if let trailingBytesAt {
            warnings.append("ignored \(src.size - trailingBytesAt) bytes after the last whole box (offset \(trailingBytesAt))")
        }
        if let cut = cutMediaData {
            duration = try held(src, sound, duration: duration, cut: cut, fragmented: fragmented, warnings: &warnings)
        }
        let info = MediaInfo(
            format: .mp4, codec: sound.codec ?? "unknown", duration: duration,
            sampleRate: sound.sampleRate ?? (sound.timescale > 0 && sound.timescale <= UInt64(MediaLimits.maxSampleRate) ? Int(sound.timescale) : nil),
            channels: sound.channels, bitsPerSample: sound.bits, creationTime: created ?? tags.creationTime,
            tags: tags.values, warnings: warnings)
        return try info.validated(name).checked(against: mediaDataBytes > 0 ? mediaDataBytes : src.size, name)
    }

    /// The length a file whose media data was cut short holds: its sample table's samples
    /// lying inside the file (fragmented files: the whole fragments), with a warning. Fails
    /// when nothing playable is left.
    private static func held(
        _ src: some ByteSource, _ sound: Track, duration: Double, cut: (claimed: UInt64, held: UInt64), fragmented: Bool,
        warnings: inout [String]
    ) throws(MediaError) -> Double {
        if fragmented {
            // The cut fragment was left out already; the whole ones before it play.
            warnings.append("truncated: the last fragment's media data is cut short; data holds \(String(format: "%.1f", duration)) s")
            return duration
        }
        var held: Double
        var estimated = false
        if let stbl = sound.sampleTable, sound.timescale > 0, let media = try MP4SampleTable.heldDuration(src, stbl: stbl, fileEnd: src.size) {
            held = min(duration, Double(media > sound.editMediaTime ? media - sound.editMediaTime : 0) / Double(sound.timescale))
        } else {
            // No sample table to place the samples (fragments, or tables too large): the
            // share of the media data the file holds.
            held = duration * Double(cut.held) / Double(max(cut.claimed, 1))
            estimated = true
        }
        guard held > 0.001 else {
            let claims = cut.claimed > 0 ? "after \(cut.held) of the \(cut.claimed) bytes it claims" : "at its start"
            throw MediaError.truncated(name, at: src.size, "the media data was cut short \(claims), before its first whole sample")
        }
        let holds = (estimated ? "about " : "") + String(format: "%.1f", held)
        warnings.append("truncated: header says \(String(format: "%.1f", duration)) s, data holds \(holds) s")
        return held
    }

    private static func track(_ src: some ByteSource, _ trak: MP4Box) throws(MediaError) -> Track {
        var t = Track()
        var stsd: MP4Box?
        for child in try MP4Box.children(src, from: trak.body, to: trak.end) {
            if child.type == "edts" {
                for e in try MP4Box.children(src, from: child.body, to: child.end) where e.type == "elst" {
                    if let (d, m) = try editList(src, e) { t.editDuration = d; t.editMediaTime = m }
                }
            }
            if child.type == "tkhd" {
                let b = try child.bytes(src, cap: 24)
                t.trackID = (b.first == 1 ? b.be(20, 4) : b.be(12, 4)) ?? 0
            }
            guard child.type == "mdia" else { continue }
            for m in try MP4Box.children(src, from: child.body, to: child.end) {
                switch m.type {
                case "mdhd":
                    let b = try m.bytes(src, cap: 32)
                    let v1 = b.first == 1
                    t.timescale = (v1 ? b.be(20, 4) : b.be(12, 4)) ?? 0
                    t.duration = (v1 ? b.be(24, 8) : b.be(16, 4)) ?? 0
                case "hdlr":
                    let b = try m.bytes(src, cap: 12)
                    t.isSound = b.matches("soun", at: 8)
                case "minf":
                    for s in try MP4Box.children(src, from: m.body, to: m.end) where s.type == "stbl" {
                        t.sampleTable = s
                        for d in try MP4Box.children(src, from: s.body, to: s.end) where d.type == "stsd" { stsd = d }
                    }
                default: break
                }
            }
        }
        if t.isSound, let stsd { try MP4SampleEntry.read(src, stsd, into: &t) }
        return t
    }

    /// Sum of the non-empty edits' durations (movie timescale) and the first non-empty
    /// edit's media time.
    private static func editList(_ src: some ByteSource, _ elst: MP4Box) throws(MediaError) -> (UInt64, UInt64)? {
        let b = try elst.bytes(src, cap: 8 + 20 * 64)
        guard b.count >= 8, let count = b.be(4, 4) else { return nil }
        let v1 = b[0] == 1
        let entrySize = v1 ? 20 : 12
        var total: UInt64 = 0
        var firstMediaTime: UInt64?
        var i = 0
        while UInt64(i) < count, 8 + (i + 1) * entrySize <= b.count {
            let p = 8 + i * entrySize
            let dur = (v1 ? b.be(p, 8) : b.be(p, 4)) ?? 0
            let mediaTime = (v1 ? b.be(p + 8, 8) : b.be(p + 4, 4)) ?? 0
            let empty = v1 ? mediaTime == UInt64.max : mediaTime == 0xFFFF_FFFF
            if !empty {
                total &+= dur
                if firstMediaTime == nil { firstMediaTime = mediaTime }
            }
            i += 1
        }
        return (total, firstMediaTime ?? 0)
    }

    private static func userData(_ src: some ByteSource, _ udta: MP4Box, into tags: inout TagSet) throws(MediaError) {
        for c in try MP4Box.children(src, from: udta.body, to: udta.end) {
            if c.type == "meta" { try meta(src, c, into: &tags); continue }
            guard c.type.hasPrefix("\\xa9"), c.bodySize > 4 else { continue }
            // QuickTime user data text: u16 length, u16 language, text.
            let b = try c.bytes(src, cap: MediaLimits.maxTagValueBytes)
            let len = Int(b.be(0, 2) ?? 0)
            guard len > 0, 4 + len <= b.count else { continue }
            tags.add(itemKey(c.type), TextDecoding.utf8(b[4..<(4 + len)]))
        }
    }

    /// `meta` (a full box in MP4, a plain one in QuickTime) holding an `ilst`.
    private static func meta(_ src: some ByteSource, _ m: MP4Box, into tags: inout TagSet) throws(MediaError) {
        let peek = try src.read(at: m.body, count: 12)
        let body = peek.matches("hdlr", at: 8) || peek.matches("ilst", at: 8) ? m.body + 4 : m.body
        guard body < m.end else { return }
        var keys: [String] = []  // QuickTime 'mdta' key names; ilst items then use 1-based indices
        for c in try MP4Box.children(src, from: body, to: m.end) {
            if c.type == "keys" { keys = try keyNames(src, c) }
            guard c.type == "ilst" else { continue }
            for item in try MP4Box.children(src, from: c.body, to: c.end) {
                var key = itemKey(item.type)
                if let raw = try src.read(at: item.start + 4, count: 4).be(0, 4), raw >= 1, raw <= UInt64(keys.count) {
                    key = keys[Int(raw) - 1]
                }
                for d in try MP4Box.children(src, from: item.body, to: item.end) {
                    let b = try d.bytes(src, cap: MediaLimits.maxTagValueBytes)
                    if d.type == "name", b.count > 4 { key = TextDecoding.utf8(b[4...]).lowercased() }
                    if d.type == "data", b.count > 8, b.be(0, 4) == 1 { tags.add(key, TextDecoding.utf8(b[8...])) }
                }
            }
        }
    }

    /// 'keys': full box header, count, then (size, namespace, name) entries. Names are
    /// lowercased without the "com.apple.quicktime." prefix ("creationdate", "title").
    private static func keyNames(_ src: some ByteSource, _ box: MP4Box) throws(MediaError) -> [String] {
        let b = try box.bytes(src, cap: 64 * 1024)
        guard let count = b.be(4, 4) else { return [] }
        var names: [String] = []
        var p = 8
        while UInt64(names.count) < count, let size = b.be(p, 4), size >= 8, p + Int(size) <= b.count {
            var name = TextDecoding.utf8(b[(p + 8)..<(p + Int(size))]).lowercased()
            if name.hasPrefix("com.apple.quicktime.") { name.removeFirst("com.apple.quicktime.".count) }
            names.append(name)
            p += Int(size)
        }
        return names
    }

    private static func itemKey(_ type: String) -> String {
        switch type {
        case "\\xa9nam": return "title"
        case "\\xa9ART": return "artist"
        case "\\xa9alb": return "album"
        case "\\xa9day": return "date"
        case "\\xa9cmt": return "comment"
        case "\\xa9too": return "encoder"
        case "desc": return "description"
        default: return type.replacingOccurrences(of: "\\xa9", with: "")
        }
    }
}
