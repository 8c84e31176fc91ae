/// Ogg with Opus, Vorbis or FLAC.
///
/// Reads the identification and comment packets from the first pages, and the duration
/// from the last complete page's granule position (Opus: 48 kHz granules minus pre-skip).
/// Only the head and the tail of the file are read.
enum OggParser {
    private static let name = "Ogg"

    struct Page {
        var offset: UInt64
        var granule: UInt64
        var serial: UInt32
        var headerType: UInt8
        var lacing: [UInt8]
        var headerSize: Int
        var bodySize: Int
        var end: UInt64 { offset + UInt64(headerSize + bodySize) }
    }

    static func readPage(_ src: some ByteSource, at pos: UInt64) throws(MediaError) -> Page {
        let h = try src.readExactly(at: pos, count: 27, format: name, what: "page header at offset \(pos)")
        guard h.matches("OggS", at: 0) else { throw MediaError.invalid(name, at: pos, "no page signature 'OggS' at offset \(pos)") }
        guard h[4] == 0 else { throw MediaError.unsupported(name, at: pos, "page version \(h[4])") }
        let n = Int(h[26])
        let lacing = try src.readExactly(at: pos + 27, count: n, format: name, what: "lacing table of page at offset \(pos)")
        let body = lacing.reduce(0) { $0 + Int($1) }
        return Page(offset: pos, granule: h.le(6, 8) ?? 0, serial: UInt32(h.le(14, 4) ?? 0), headerType: h[5],
                    lacing: lacing, headerSize: 27 + n, bodySize: body)
    }

    static func parse(_ src: some ByteSource, at start: UInt64) throws(MediaError) -> MediaInfo {
        let first = try readPage(src, at: start)
        let packets = try headerPackets(src, first: first)
        guard let id = packets.first else { throw MediaError.truncated(name, at: start, "first packet is incomplete") }
        var tags = TagSet()
        var codec: String
        var sampleRate: Int
        var channels: Int
        var preSkip: UInt64 = 0
        var bits: Int?
        if id.matches("OpusHead", at: 0) {
            guard id.count >= 19 else { throw MediaError.truncated(name, at: start, "OpusHead is \(id.count) bytes, expected 19") }
            codec = "opus"
            channels = Int(id[9])
            preSkip = id.le(10, 2) ?? 0
            sampleRate = 48000  // Opus always decodes at 48 kHz; the stored input rate is informational
            if let input = id.le(12, 4), input > 0 { tags.add("input_sample_rate", String(input)) }
            if packets.count > 1, packets[1].matches("OpusTags", at: 0) { VorbisComment.read(packets[1], from: 8, into: &tags) }
        } else if id.count >= 7, id[0] == 1, id.matches("vorbis", at: 1) {
            guard id.count >= 16 else { throw MediaError.truncated(name, at: start, "Vorbis identification header is \(id.count) bytes") }
            codec = "vorbis"
            channels = Int(id[11])
            sampleRate = Int(id.le(12, 4) ?? 0)
            if packets.count > 1, packets[1].count > 7, packets[1][0] == 3 { VorbisComment.read(packets[1], from: 7, into: &tags) }
        } else if id.count >= 51, id[0] == 0x7F, id.matches("FLAC", at: 1), id.matches("fLaC", at: 9) {
            codec = "flac"
            let packed = id.be(27, 8) ?? 0  // STREAMINFO bytes 10..17 (after 13 + 4 header bytes)
            sampleRate = Int(packed >> 44)
            channels = Int((packed >> 41) & 7) + 1
            bits = Int((packed >> 36) & 0x1F) + 1
            if packets.count > 1, packets[1].count > 4 { VorbisComment.read(packets[1], from: 4, into: &tags) }
        } else {
            throw MediaError.unsupported(name, at: start, "stream codec is not Opus, Vorbis or FLAC")
        }
        guard sampleRate > 0 else { throw MediaError.invalid(name, at: start, "sample rate is 0") }
        guard channels > 0 else { throw MediaError.invalid(name, at: start, "channel count is 0") }
        guard let last = try lastPage(src, serial: first.serial, after: start) else {
            throw MediaError.truncated(name, at: start, "no complete audio page with a granule position was found")
        }
        let samples = last.granule > preSkip ? last.granule - preSkip : 0
        guard samples > 0 else { throw MediaError.noAudio(name, at: nil, "the stream holds no samples") }
        let duration = Double(samples) / Double(sampleRate)
        var warnings: [String] = []
        // Ogg states no length up front: a stream whose last page is cut off, or that never
        // reached its end-of-stream page, was cut short; what its whole pages hold plays.
        if last.fileEndsInsidePage || !last.endOfStream {
            let how = last.fileEndsInsidePage ? "the file ends inside a page" : "the stream has no end-of-stream page"
            warnings.append("truncated: \(how); data holds \(String(format: "%.1f", duration)) s")
        }
        let info = MediaInfo(
            format: .ogg, codec: codec, duration: duration, sampleRate: sampleRate,
            channels: channels, bitsPerSample: bits, creationTime: tags.creationTime, tags: tags.values, warnings: warnings)
        return try info.validated(name)
    }

    /// The first two packets of the first page's stream (identification, comments),
    /// each capped at ``MediaLimits/maxMetadataBytes``.
    private static func headerPackets(_ src: some ByteSource, first: Page) throws(MediaError) -> [[UInt8]] {
        var packets: [[UInt8]] = []
        var current: [UInt8] = []
        var page = first
        var pages = 0
        // Bounded: at most 512 pages and at most two packets are assembled.
        while pages < 512 {
            pages += 1
            if page.serial == first.serial {
                let body = try src.readExactly(at: page.offset + UInt64(page.headerSize), count: page.bodySize, format: name, what: "page body at offset \(page.offset)")
                var p = 0
                for lace in page.lacing {
                    let n = Int(lace)
                    if current.count + n <= MediaLimits.maxMetadataBytes { current.append(contentsOf: body[p..<(p + n)]) }
                    p += n
                    if lace < 255 {
                        packets.append(current)
                        current = []
                        if packets.count == 2 { return packets }
                    }
                }
                if current.count >= MediaLimits.maxMetadataBytes { packets.append(current); return packets }
            }
            guard page.end + 27 <= src.size, let next = try? readPage(src, at: page.end) else { break }
            page = next
        }
        return packets
    }

    /// The last complete page of a stream, as the end of the file shows it.
    struct LastPage {
        var granule: UInt64
        /// The page has the end-of-stream flag.
        var endOfStream: Bool
        /// Bytes follow the last complete page (of any stream) that are no whole page.
        var fileEndsInsidePage: Bool
    }

    /// The last complete page of `serial` with a granule position, searching backwards from
    /// the end in growing windows (64 KiB, then up to 1 MiB).
    private static func lastPage(_ src: some ByteSource, serial: UInt32, after start: UInt64) throws(MediaError) -> LastPage? {
        var window: UInt64 = 64 * 1024
        while true {
            let from = max(start, src.size > window ? src.size - window : 0)
            let b = try src.read(at: from, count: Int(src.size - from))
            var lastEnd: Int?
            var i = b.count - 27
            while i >= 0 {
                if b[i] == 0x4F, b.matches("OggS", at: i), b[i + 4] == 0 {
                    let n = Int(b[i + 26])
                    if i + 27 + n <= b.count {
                        var body = 0
                        for k in 0..<n { body += Int(b[i + 27 + k]) }
                        let end = i + 27 + n + body
                        let granule = b.le(i + 6, 8) ?? UInt64.max
                        if end <= b.count, lastEnd == nil { lastEnd = end }
                        if end <= b.count, UInt32(b.le(i + 14, 4) ?? 0) == serial, granule != UInt64.max {
                            return LastPage(granule: granule, endOfStream: b[i + 5] & 4 != 0, fileEndsInsidePage: (lastEnd ?? end) < b.count)
                        }
                    }
                }
                i -= 1
            }
            if from == start || window >= 1 << 20 { return nil }
            window *= 4
        }
    }
}
