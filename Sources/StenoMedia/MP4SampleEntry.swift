/// The audio sample entry inside `stsd`, and the codec configuration boxes under it
/// (`esds` with the AAC AudioSpecificConfig, `alac`, `dOps`, QuickTime `wave`).
enum MP4SampleEntry {
    private static let name = "MP4"

    static func read(_ src: some ByteSource, _ stsd: MP4Box, into t: inout MP4Parser.Track) throws(MediaError) {
        // stsd: version/flags (4), entry count (4), then the first sample entry box.
        guard stsd.bodySize >= 16 else { throw MediaError.invalid(name, at: stsd.start, "'stsd' box is too small") }
        let entry = try MP4Box.read(src, at: stsd.body + 8, limit: stsd.end)
        let b = try entry.bytes(src, cap: 64)
        t.codec = codecName(entry.type)
        // Audio sample entry: 8 reserved/index bytes, version, revision, vendor, channels,
        // sample size, compression id, packet size, rate (16.16).
        guard b.count >= 28, let version = b.be(8, 2) else { return }
        if let ch = b.be(16, 2), ch > 0 { t.channels = Int(ch) }
        if let bits = b.be(18, 2), bits > 0, entry.type != "mp4a" { t.bits = Int(bits) }
        if let rate = b.be(24, 2), rate > 0 { t.sampleRate = Int(rate) }
        var childStart = entry.body + 28
        if version == 1 {
            childStart += 16
        } else if version == 2 {
            childStart += 36
            // v2: f64 sample rate at +32 and u32 channel count at +40 of the body.
            if let bitsRate = b.be(32, 8) {
                let r = Double(bitPattern: bitsRate)
                if r.isFinite, r >= 1, r <= Double(MediaLimits.maxSampleRate) { t.sampleRate = Int(r) }
            }
            if let ch = b.be(40, 4), ch > 0, ch < 256 { t.channels = Int(ch) }
        }
        guard childStart < entry.end else { return }
        try configs(src, from: childStart, to: entry.end, into: &t, depth: 0)
    }

    private static func configs(_ src: some ByteSource, from: UInt64, to end: UInt64, into t: inout MP4Parser.Track, depth: Int) throws(MediaError) {
        // Some writers leave a few padding bytes that are not a box; stop quietly then.
        guard let kids = try? MP4Box.children(src, from: from, to: end) else { return }
        for c in kids {
            switch c.type {
            case "esds":
                try esds(try c.bytes(src, cap: 4096), base: c.body, into: &t)
            case "alac":
                // Full box header (4) then ALACSpecificConfig: frameLength u32, version u8,
                // bitDepth u8, pb, mb, kb, numChannels u8, maxRun u16, maxFrameBytes u32,
                // avgBitRate u32, sampleRate u32.
                let b = try c.bytes(src, cap: 64)
                if b.count >= 28 {
                    if b[9] > 0 { t.bits = Int(b[9]) }
                    if b[13] > 0 { t.channels = Int(b[13]) }
                    if let r = b.be(24, 4), r > 0 { t.sampleRate = Int(r) }
                }
            case "dOps":
                let b = try c.bytes(src, cap: 32)
                if b.count >= 2, b[1] > 0 { t.channels = Int(b[1]) }
                t.sampleRate = 48000
            case "wave" where depth < 2:
                try configs(src, from: c.body, to: c.end, into: &t, depth: depth + 1)
            default: break
            }
        }
    }

    /// ES_Descriptor → DecoderConfigDescriptor → DecoderSpecificInfo (AudioSpecificConfig).
    static func esds(_ b: [UInt8], base: UInt64, into t: inout MP4Parser.Track) throws(MediaError) {
        var r = BinaryReader(b, base: base, format: name)
        try r.skip(4, "esds version")
        func descriptor(_ r: inout BinaryReader) throws(MediaError) -> (tag: UInt8, length: Int) {
            let tag = try r.u8("descriptor tag")
            var len = 0
            for _ in 0..<4 {
                let c = try r.u8("descriptor length")
                len = len << 7 | Int(c & 0x7F)
                if c & 0x80 == 0 { break }
            }
            return (tag, len)
        }
        var d = try descriptor(&r)
        guard d.tag == 3 else { return }
        try r.skip(2, "ES_ID")
        let flags = try r.u8("ES flags")
        if flags & 0x80 != 0 { try r.skip(2) }
        if flags & 0x40 != 0 { try r.skip(Int(try r.u8())) }
        if flags & 0x20 != 0 { try r.skip(2) }
        d = try descriptor(&r)
        guard d.tag == 4 else { return }
        let oti = try r.u8("objectTypeIndication")
        switch oti {
        case 0x40, 0x66, 0x67, 0x68: t.codec = "aac"
        case 0x69, 0x6B: t.codec = "mp3"
        case 0xA5: t.codec = "ac3"
        case 0xA6: t.codec = "eac3"
        case 0xAD: t.codec = "opus"
        default: t.codec = "mp4a_0x" + String(oti, radix: 16)
        }
        try r.skip(12, "decoder config")
        guard t.codec == "aac", r.remaining > 2 else { return }
        d = try descriptor(&r)
        guard d.tag == 5, d.length >= 2 else { return }
        let asc = try r.take(min(d.length, r.remaining), "AudioSpecificConfig")
        applyAudioSpecificConfig(Array(asc), into: &t)
    }

    /// AudioSpecificConfig: object type (5 bits, 31 = escape + 6), frequency index (4 bits,
    /// 15 = explicit 24-bit rate), channel configuration (4 bits; 0 = defined elsewhere).
    static func applyAudioSpecificConfig(_ asc: [UInt8], into t: inout MP4Parser.Track) {
        var bits = BitReader(asc)
        guard var aot = bits.read(5) else { return }
        if aot == 31, let ext = bits.read(6) { aot = 32 + ext }
        guard let fi = bits.read(4) else { return }
        var rate: Int?
        if fi == 15 { rate = bits.read(24) } else if fi < 13 { rate = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350][fi] }
        guard let cc = bits.read(4) else { return }
        if let rate, rate > 0 { t.sampleRate = rate }
        t.audioObjectType = aot
        switch cc {
        case 1...6: t.channels = cc
        case 7: t.channels = 8
        default: break  // 0: program config element; keep the sample entry's count
        }
        if aot == 5 || aot == 29 { t.codec = "aac" }  // HE-AAC still decodes as AAC
    }
}

/// Reads big-endian bit fields from a byte buffer; nil past the end.
struct BitReader {
    let bytes: [UInt8]
    var bitPos = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func read(_ n: Int) -> Int? {
        guard n <= 32, bitPos + n <= bytes.count * 8 else { return nil }
        var v = 0
        for _ in 0..<n {
            let byte = bytes[bitPos >> 3]
            v = v << 1 | Int((byte >> (7 - UInt8(bitPos & 7))) & 1)
            bitPos += 1
        }
        return v
    }
}

extension MP4SampleEntry {
    static func codecName(_ fourCC: String) -> String {
        switch fourCC {
        case "mp4a": return "aac"
        case "alac": return "alac"
        case "Opus": return "opus"
        case "fLaC": return "flac"
        case "ac-3": return "ac3"
        case "ec-3": return "eac3"
        case "sowt": return "pcm_s16le"
        case "twos": return "pcm_s16be"
        case "lpcm": return "pcm"
        case "in24": return "pcm_s24be"
        case "fl32": return "pcm_f32be"
        case "ulaw": return "pcm_mulaw"
        case "alaw": return "pcm_alaw"
        case "ima4": return "ima4"
        case ".mp3": return "mp3"
        default: return fourCC
        }
    }
}
