/// MPEG audio (MP3, and layers I/II) with ID3v2 tags.
///
/// Duration, in order of preference: a Xing/Info header's frame count minus the LAME
/// gapless delay and padding (what decoders such as FFmpeg trim); a VBRI header's frame
/// count; otherwise a scan of every frame header (exact for CBR and VBR alike). Beyond
/// ``scanLimit`` bytes the scanned part is extrapolated (a CBR-style estimate).
enum MP3Parser {
    private static let name = "MP3"
    /// Bytes scanned frame by frame before extrapolating.
    static let scanLimit: UInt64 = 512 << 20

    static func parse(_ src: some ByteSource, at start: UInt64, id3: ID3Tag?) throws(MediaError) -> MediaInfo {
        let firstBytes = try src.read(at: start, count: 4096)
        guard let first = FrameHeader.parse(firstBytes, 0) else {
            throw MediaError.invalid(name, at: start, "no MPEG audio frame header at offset \(start)")
        }
        var tags = id3?.tags ?? TagSet()
        // Audio ends before an ID3v1 tag ("TAG", last 128 bytes) when there is one.
        var audioEnd = src.size
        if src.size >= start + 128, let t = try? src.readExactly(at: src.size - 128, count: 3, format: name, what: "ID3v1"), t.matches("TAG", at: 0) {
            audioEnd = src.size - 128
        }
        let spf = UInt64(first.samples)
        let sr = Double(first.sampleRate)
        var duration: Double
        var warnings: [String] = []
        let available = audioEnd - start
        if let x = xing(firstBytes, first), let frames = x.frames, frames > 0, plausible(frames: frames, bytes: x.bytes, available: available, first) {
            let total = frames * spf
            let trim = UInt64(x.delay + x.padding)
            duration = Double(total > trim ? total - trim : 0) / sr
            if let enc = x.encoder { tags.add("encoder", enc) }
        } else if let v = vbri(firstBytes), v.frames > 0, plausible(frames: v.frames, bytes: v.bytes, available: available, first) {
            duration = Double(v.frames * spf) / sr
        } else {
            let limit = min(audioEnd, start + scanLimit)
            let scan = try scanFrames(src, from: start, limit: limit, first: first)
            guard scan.frames > 0 else {
                throw MediaError.truncated(name, at: start, "first frame at offset \(start) needs \(first.length) bytes but the file ends at \(src.size)")
            }
            duration = Double(scan.samples) / sr
            if limit < audioEnd, scan.end >= limit - 8192, scan.bytes > 0 {
                // Too long to scan whole: extrapolate from the scanned part.
                duration *= Double(audioEnd - start) / Double(scan.end - start)
            }
            if let claimed = claimedFrames(firstBytes, first), Double(claimed * spf) / sr > duration + 1 {
                warnings.append(
                    "truncated: header says \(String(format: "%.1f", Double(claimed * spf) / sr)) s, data holds \(String(format: "%.1f", duration)) s")
            }
        }
        let info = MediaInfo(
            format: .mp3, codec: first.layer == 3 ? "mp3" : (first.layer == 2 ? "mp2" : "mp1"), duration: duration,
            sampleRate: first.sampleRate, channels: first.channels, creationTime: id3?.creationTime,
            tags: tags.values, warnings: warnings)
        return try info.validated(name)
    }

    /// The frame count a Xing/Info or VBRI header claims, when there is one.
    static func claimedFrames(_ b: [UInt8], _ first: FrameHeader) -> UInt64? {
        if let frames = xing(b, first)?.frames, frames > 0 { return frames }
        if let v = vbri(b), v.frames > 0 { return v.frames }
        return nil
    }

    /// A header's counts fit the file. A cut-off download keeps the header of the whole
    /// file; then only a frame scan tells what a decoder will actually play.
    static func plausible(frames: UInt64, bytes: UInt64?, available: UInt64, _ first: FrameHeader) -> Bool {
        if let bytes, bytes > 0, bytes > available + UInt64(first.length) { return false }
        // No frame of this stream is shorter than one at the lowest bitrate (32 kbit/s; 8 for MPEG-2 layers II/III).
        let lowestBitrate = first.version != 1 && first.layer != 1 ? 8 : 32
        let shortest = max(24, first.samples * lowestBitrate * 125 / max(first.sampleRate, 1))
        return frames <= available / UInt64(shortest)
    }

    struct Xing {
        var frames: UInt64?
        var bytes: UInt64?
        var delay = 0
        var padding = 0
        var encoder: String?
    }

    /// Reads a Xing/Info header (and its LAME extension) from the first frame.
    static func xing(_ b: [UInt8], _ h: FrameHeader) -> Xing? {
        let sideInfo: Int
        if h.version == 1 { sideInfo = h.channels == 1 ? 17 : 32 } else { sideInfo = h.channels == 1 ? 9 : 17 }
        let at = 4 + sideInfo
        guard b.matches("Xing", at: at) || b.matches("Info", at: at), let flags = b.be(at + 4, 4) else { return nil }
        var x = Xing()
        var p = at + 8
        if flags & 1 != 0 { x.frames = b.be(p, 4); p += 4 }
        if flags & 2 != 0 { x.bytes = b.be(p, 4); p += 4 }
        if flags & 4 != 0 { p += 100 }
        if flags & 8 != 0 { p += 4 }
        // LAME tag: 9-byte version, then gapless delay/padding (12 + 12 bits) at +21.
        // Decoders only trust it from LAME or FFmpeg (Lavf/Lavc), as FFmpeg does.
        if b.matches("LAME", at: p) || b.matches("Lavf", at: p) || b.matches("Lavc", at: p), let v = b.be(p + 21, 3) {
            x.delay = Int(v >> 12)
            x.padding = Int(v & 0xFFF)
            x.encoder = TextDecoding.latin1(b[p..<(p + 9)])
        }
        return x
    }

    /// Byte and frame counts from a Fraunhofer VBRI header (always 32 bytes after the
    /// frame header): "VBRI", version, delay, quality, bytes, frames.
    static func vbri(_ b: [UInt8]) -> (bytes: UInt64, frames: UInt64)? {
        guard b.matches("VBRI", at: 36), let bytes = b.be(36 + 10, 4), let frames = b.be(36 + 14, 4) else { return nil }
        return (bytes, frames)
    }
}
