/// Native FLAC: STREAMINFO for format and length, VORBIS_COMMENT for tags and DATE.
enum FLACParser {
    private static let name = "FLAC"

    static func parse(_ src: some ByteSource, at start: UInt64, id3: ID3Tag?) throws(MediaError) -> MediaInfo {
        var pos = start + 4
        var streamInfo: [UInt8]?
        var tags = TagSet()
        var isLast = false
        var blocks = 0
        // Metadata blocks each advance by at least 4 bytes; the count cap bounds odd files.
        while !isLast, blocks < 10_000 {
            blocks += 1
            let h = try src.readExactly(at: pos, count: 4, format: name, what: "metadata block header at offset \(pos)")
            isLast = h[0] & 0x80 != 0
            let type = h[0] & 0x7F
            let length = Int(h.be(1, 3) ?? 0)
            let body = pos + 4
            if UInt64(length) > src.remaining(after: body) {
                throw MediaError.truncated(name, at: pos, "metadata block \(type) at offset \(pos) claims \(length) bytes but the file ends at \(src.size)")
            }
            switch type {
            case 0:
                guard length >= 34 else { throw MediaError.invalid(name, at: pos, "STREAMINFO is \(length) bytes, expected 34") }
                streamInfo = try src.readExactly(at: body, count: 34, format: name, what: "STREAMINFO")
            case 4:
                let b = try src.readExactly(at: body, count: min(length, MediaLimits.maxMetadataBytes), format: name, what: "VORBIS_COMMENT")
                VorbisComment.read(b, from: 0, into: &tags)
            case 127:
                throw MediaError.invalid(name, at: pos, "metadata block type 127 is forbidden")
            default:
                break
            }
            pos = body + UInt64(length)
        }
        guard let si = streamInfo else { throw MediaError.invalid(name, at: start, "no STREAMINFO block") }
        // Bytes 10..17: 20 bits sample rate, 3 bits channels-1, 5 bits bits-1, 36 bits total samples.
        let packed = si.be(10, 8) ?? 0
        let sampleRate = Int(packed >> 44)
        let channels = Int((packed >> 41) & 0x7) + 1
        let bits = Int((packed >> 36) & 0x1F) + 1
        let total = packed & 0xF_FFFF_FFFF
        guard sampleRate > 0 else { throw MediaError.invalid(name, at: start + 8, "STREAMINFO sample rate is 0") }
        guard total > 0 else {
            throw MediaError.unsupported(name, at: start + 8, "STREAMINFO has no total sample count (stream length unknown)")
        }
        if let id3 { for (k, v) in id3.tags.values { tags.add(k, v) } }
        let info = MediaInfo(
            format: .flac, codec: "flac", duration: Double(total) / Double(sampleRate), sampleRate: sampleRate,
            channels: channels, bitsPerSample: bits, creationTime: tags.creationTime, tags: tags.values)
        return try info.validated(name)
    }
}
