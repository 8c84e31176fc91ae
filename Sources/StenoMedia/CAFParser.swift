/// Apple Core Audio Format (iOS voice memos and recorders).
///
/// Chunks: `desc` (format), `pakt` (packet table: valid frames), `kuki` (ALAC cookie:
/// channels), `info` (text, e.g. "recorded date"), `data` (size -1 = to end of file).
enum CAFParser {
    private static let name = "CAF"

    static func parse(_ src: some ByteSource, at start: UInt64) throws(MediaError) -> MediaInfo {
        let h = try src.readExactly(at: start, count: 8, format: name, what: "file header")
        guard h.be(4, 2) == 1 else { throw MediaError.unsupported(name, at: start + 4, "file version \(h.be(4, 2) ?? 0)") }
        var desc: [UInt8]?
        var validFrames: UInt64?
        var packets: UInt64?
        var dataBytes: UInt64?
        var dataStart: UInt64 = 0
        var lastPacketSize: UInt64?
        var cookieChannels: Int?
        var cookieRate: Int?
        var tags = TagSet()
        var claimedDataBytes: UInt64?
        var cutAt: UInt64 = 0
        var warnings: [String] = []
        var pos = start + 8
        var n = 0
        // Each chunk advances pos by at least its 12-byte header.
        while pos + 12 <= src.size, n < 100_000 {
            n += 1
            let c = try src.readExactly(at: pos, count: 12, format: name, what: "chunk header at offset \(pos)")
            let type = fourCCString(c[0..<4])
            let raw = c.be(4, 8) ?? 0
            let body = pos + 12
            let avail = src.remaining(after: body)
            if type == "data" {
                // -1: the data runs to the end (a recording still being written).
                var size = raw == UInt64.max ? avail : raw
                if size > avail {
                    // Cut short: constant-size packets still say what is there (checked below).
                    claimedDataBytes = size >= 4 ? size - 4 : 0
                    cutAt = pos
                    size = avail
                }
                dataBytes = size >= 4 ? size - 4 : 0  // 4-byte edit count precedes the audio
                dataStart = body + 4
                pos = body + size
                continue
            }
            guard raw <= avail else {
                // After a whole audio chunk, bytes that are no whole chunk (appended by a tool,
                // padding) do not cut the audio: decoders play it all.
                if dataBytes != nil, claimedDataBytes == nil {
                    warnings.append("ignored \(src.size - pos) bytes after the last whole chunk (offset \(pos))")
                    break
                }
                throw MediaError.truncated(name, at: pos, "chunk '\(type)' at offset \(pos) claims \(raw) bytes but the file ends at \(src.size)")
            }
            switch type {
            case "desc":
                guard raw >= 32 else { throw MediaError.invalid(name, at: pos, "'desc' chunk is \(raw) bytes, expected 32") }
                desc = try src.readExactly(at: body, count: 32, format: name, what: "'desc' chunk")
            case "pakt":
                let b = try src.readExactly(at: body, count: Int(min(raw, UInt64(MediaLimits.maxMetadataBytes))), format: name, what: "'pakt' chunk")
                packets = b.be(0, 8)
                validFrames = b.be(8, 8)
                lastPacketSize = lastTableEntry(b, from: 24)
            case "kuki":
                let b = try src.readExactly(at: body, count: Int(min(raw, 64)), format: name, what: "'kuki' chunk")
                // ALACSpecificConfig, possibly wrapped in 'frma' + 'alac' atoms (24 bytes of headers).
                let at = b.matches("frma", at: 4) ? 24 : 0
                if b.count >= at + 24 {
                    if b[at + 9] > 0 { cookieChannels = Int(b[at + 9]) }
                    if let r = b.be(at + 20, 4), r > 0 { cookieRate = Int(r) }
                }
            case "info":
                let b = try src.readExactly(at: body, count: Int(min(raw, UInt64(MediaLimits.maxMetadataBytes))), format: name, what: "'info' chunk")
                readInfo(b, into: &tags)
            default: break
            }
            pos = body + raw
        }
        guard let desc else { throw MediaError.invalid(name, at: start, "no 'desc' chunk") }
        guard let dataBytes else { throw MediaError.truncated(name, at: pos, "no 'data' chunk before the end of the file") }
        guard dataBytes > 0 else { throw MediaError.noAudio(name, at: nil, "the 'data' chunk is empty") }
        let rate = Double(bitPattern: desc.be(0, 8) ?? 0)
        guard rate.isFinite, rate >= 1, rate <= Double(MediaLimits.maxSampleRate) else {
            throw MediaError.invalid(name, at: start + 20, "sample rate \(rate) is not plausible")
        }
        let formatID = fourCCString(desc[8..<12])
        let flags = desc.be(12, 4) ?? 0
        let bytesPerPacket = desc.be(16, 4) ?? 0
        let framesPerPacket = desc.be(20, 4) ?? 0
        let channels = Int(desc.be(24, 4) ?? 0)
        let bits = Int(desc.be(28, 4) ?? 0)
        // Every packet takes at least one byte (or exactly bytesPerPacket): a count beyond that is a corrupt header.
        let mostFrames = bytesPerPacket > 0 ? (dataBytes / bytesPerPacket + 1) &* framesPerPacket : dataBytes &* framesPerPacket
        var frames: UInt64
        if let claimed = claimedDataBytes {
            guard bytesPerPacket > 0, framesPerPacket > 0 else {
                throw MediaError.truncated(name, at: cutAt, "chunk 'data' at offset \(cutAt) claims \(claimed + 4) bytes but the file ends at \(src.size)")
            }
            frames = (dataBytes / bytesPerPacket) &* framesPerPacket
            let said = Double((claimed / bytesPerPacket) &* framesPerPacket) / rate
            warnings.append("truncated: header says \(String(format: "%.1f", said)) s, data holds \(String(format: "%.1f", Double(frames) / rate)) s")
        } else if let v = validFrames, v > 0 {
            frames = v
        } else if bytesPerPacket > 0, framesPerPacket > 0 {
            frames = (dataBytes / bytesPerPacket) &* framesPerPacket
        } else if let p = packets, framesPerPacket > 0 {
            frames = p &* framesPerPacket
        } else {
            throw MediaError.invalid(name, at: start, "cannot size variable-bitrate '\(formatID)' audio without a packet table")
        }
        if framesPerPacket > 0, frames > mostFrames {
            throw MediaError.invalid(name, at: start, "the header claims \(frames) frames but the \(dataBytes) bytes of audio can hold at most \(mostFrames)")
        }

        if formatID == "alac", let p = packets, p > 0, framesPerPacket > 0, let last = lastPacketSize, last <= dataBytes, last >= 7,
           let n = try alacPartialFrameCount(src, at: dataStart + dataBytes - last) {
            // FFmpeg's CAF writer counts the last packet as full; the ALAC frame header knows better.
            frames = (p - 1) &* framesPerPacket &+ n
        }
        let codec = codecName(formatID, flags: flags, bits: bits)
        let info = MediaInfo(
            format: .caf, codec: codec, duration: Double(frames) / rate, sampleRate: cookieRate ?? Int(rate),
            channels: cookieChannels ?? channels, bitsPerSample: bits > 0 ? bits : nil,
            creationTime: tags.creationTime, tags: tags.values, warnings: warnings)
        return try info.validated(name)
    }

    static func codecName(_ id: String, flags: UInt64, bits: Int) -> String {
        switch id {
        case "lpcm":
            let isFloat = flags & 1 != 0
            let endian = flags & 2 != 0 ? "le" : "be"
            if isFloat { return "pcm_f\(bits)\(endian)" }
            return bits == 8 ? "pcm_s8" : "pcm_s\(bits)\(endian)"
        case "ima4": return "ima4"
        case "alac": return "alac"
        case "aac ": return "aac"
        case ".mp3": return "mp3"
        case "ulaw": return "pcm_mulaw"
        case "alaw": return "pcm_alaw"
        case "opus": return "opus"
        case "flac": return "flac"
        default: return id
        }
    }

    /// The last BER-encoded integer of a packet table (the last packet's size when every
    /// entry is a size).
    static func lastTableEntry(_ b: [UInt8], from start: Int) -> UInt64? {
        var p = start
        var last: UInt64?
        var v: UInt64 = 0
        var digits = 0
        while p < b.count {
            v = v << 7 | UInt64(b[p] & 0x7F)
            digits += 1
            if b[p] & 0x80 == 0 { last = v; v = 0; digits = 0 } else if digits > 9 { return nil }
            p += 1
        }
        return last
    }

    /// Sample count of a partial ALAC frame: element (3 bits), tag (4), unused (12),
    /// partial flag (1), shift (2), uncompressed (1), then 32-bit count when partial.
    static func alacPartialFrameCount(_ src: some ByteSource, at offset: UInt64) throws(MediaError) -> UInt64? {
        let b = try src.read(at: offset, count: 7)
        var bits = BitReader(b)
        guard bits.read(19) != nil, let partial = bits.read(1), partial == 1, bits.read(3) != nil,
              let hi = bits.read(16), let lo = bits.read(16) else { return nil }
        let n = UInt64(hi) << 16 | UInt64(lo)
        return n > 0 ? n : nil
    }

    /// 'info': entry count (u32) then NUL-terminated key/value pairs.
    private static func readInfo(_ b: [UInt8], into tags: inout TagSet) {
        var strings: [String] = []
        var p = 4
        while p < b.count, strings.count < 2 * MediaLimits.maxTagCount {
            var q = p
            while q < b.count, b[q] != 0 { q += 1 }
            strings.append(TextDecoding.utf8(b[p..<q]))
            p = q + 1
        }
        var i = 0
        while i + 1 < strings.count {
            tags.add(strings[i], strings[i + 1])
            i += 2
        }
    }
}
