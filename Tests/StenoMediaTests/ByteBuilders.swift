@testable import StenoMedia

/// Helpers that assemble container bytes by hand for edge-case tests.
enum Bytes {
    static func be(_ v: UInt64, _ n: Int) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: v >> (8 * UInt64(n - 1 - $0))) } }
    static func le(_ v: UInt64, _ n: Int) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) } }
    static func ascii(_ s: String) -> [UInt8] { Array(s.utf8) }

    // MARK: MP4

    static func box(_ type: String, _ body: [UInt8]) -> [UInt8] { be(UInt64(8 + body.count), 4) + ascii(type) + body }
    static func largeBox(_ type: String, _ body: [UInt8]) -> [UInt8] { be(1, 4) + ascii(type) + be(UInt64(16 + body.count), 8) + body }
    static func fullBox(_ type: String, version: UInt8 = 0, _ body: [UInt8]) -> [UInt8] { box(type, [version, 0, 0, 0] + body) }

    static func mvhd(created: UInt64, timescale: UInt64 = 1000, duration: UInt64) -> [UInt8] {
        fullBox("mvhd", be(created, 4) + be(created, 4) + be(timescale, 4) + be(duration, 4) + [UInt8](repeating: 0, count: 80))
    }

    static func mdhd(timescale: UInt64, duration: UInt64) -> [UInt8] {
        fullBox("mdhd", be(0, 4) + be(0, 4) + be(timescale, 4) + be(duration, 4) + be(0, 4))
    }

    /// An AAC-LC `mp4a` sample entry whose header says 2 channels but whose
    /// AudioSpecificConfig says `channels`.
    static func mp4aEntry(rate: Int, rateIndex: UInt8, channels: UInt8) -> [UInt8] {
        let asc: [UInt8] = [(2 << 3) | (rateIndex >> 1), ((rateIndex & 1) << 7) | (channels << 3)]
        let dsi: [UInt8] = [5, UInt8(asc.count)] + asc
        let dcd: [UInt8] = [4, UInt8(13 + dsi.count), 0x40, 0x15] + [UInt8](repeating: 0, count: 11) + dsi
        let esd: [UInt8] = [3, UInt8(3 + dcd.count), 0, 1, 0] + dcd
        let esds = fullBox("esds", esd)
        let entry = [UInt8](repeating: 0, count: 6) + be(1, 2) + be(0, 8) + be(2, 2) + be(16, 2) + be(0, 4) + be(UInt64(rate) << 16, 4) + esds
        return box("mp4a", entry)
    }

    static func soundTrak(timescale: UInt64, duration: UInt64, entry: [UInt8]) -> [UInt8] {
        let hdlr = fullBox("hdlr", be(0, 4) + ascii("soun") + [UInt8](repeating: 0, count: 13))
        let stsd = fullBox("stsd", be(1, 4) + entry)
        return box("trak", box("mdia", mdhd(timescale: timescale, duration: duration) + hdlr + box("minf", box("stbl", stsd))))
    }

    /// An AAC M4A of 2 s (or `seconds`) whose media data is `mdat`.
    static func m4a(created: UInt64, channels: UInt8 = 1, seconds: UInt64 = 2, mdat: [UInt8] = box("mdat", [UInt8](repeating: 1, count: 64))) -> [UInt8] {
        let ftyp = box("ftyp", ascii("M4A ") + be(0, 4) + ascii("isom"))
        let track = soundTrak(timescale: 44100, duration: 44100 * seconds, entry: mp4aEntry(rate: 44100, rateIndex: 4, channels: channels))
        let moov = box("moov", mvhd(created: created, duration: 1000 * seconds) + track)
        return ftyp + moov + mdat
    }

    // MARK: EBML

    /// An element with an 8-byte size (or the unknown size when `unknown`).
    static func ebml(_ id: UInt32, _ data: [UInt8], unknown: Bool = false) -> [UInt8] {
        let idBytes = id > 0xFFFFFF ? be(UInt64(id), 4) : id > 0xFFFF ? be(UInt64(id), 3) : id > 0xFF ? be(UInt64(id), 2) : [UInt8(id)]
        let size: [UInt8] = unknown ? [0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF] : [0x01] + be(UInt64(data.count), 7)
        return idBytes + size + data
    }

    static func ebmlUInt(_ id: UInt32, _ v: UInt64) -> [UInt8] { ebml(id, be(v, 8)) }

    static func simpleBlock(track: UInt8, time: Int16) -> [UInt8] {
        ebml(0xA3, [0x80 | track] + be(UInt64(UInt16(bitPattern: time)), 2) + [0x80, 0xFC, 0, 0])
    }

    // MARK: RIFF

    static func chunk(_ id: String, _ body: [UInt8]) -> [UInt8] { ascii(id) + le(UInt64(body.count), 4) + body + (body.count % 2 == 1 ? [0] : []) }

    static func fmtPCM(rate: UInt64, channels: UInt64, bits: UInt64) -> [UInt8] {
        let align = channels * bits / 8
        return chunk("fmt ", le(1, 2) + le(channels, 2) + le(rate, 4) + le(rate * align, 4) + le(align, 2) + le(bits, 2))
    }

    // MARK: MP3

    /// MPEG-1 layer III, 128 kbit/s, 44.1 kHz, stereo: 417-byte frames.
    static let mp3Header: [UInt8] = [0xFF, 0xFB, 0x90, 0x00]

    static func mp3Frame(_ payload: [UInt8] = []) -> [UInt8] {
        var f = mp3Header + payload
        f += [UInt8](repeating: 0, count: max(0, 417 - f.count))
        return Array(f.prefix(417))
    }

    /// A Xing frame with a frame count and a LAME tag carrying delay/padding.
    static func xingFrame(frames: UInt64, delay: UInt64, padding: UInt64) -> [UInt8] {
        var p = [UInt8](repeating: 0, count: 32)  // side info
        p += ascii("Xing") + be(1, 4) + be(frames, 4)
        p += ascii("LAME3.100") + [UInt8](repeating: 0, count: 12) + be(delay << 12 | padding, 3)
        return mp3Frame(p)
    }

    static func id3(major: UInt8, frames: [(String, [UInt8])]) -> [UInt8] {
        var body: [UInt8] = []
        for (id, data) in frames {
            let size: [UInt8] = major == 4 ? syncsafe(UInt64(data.count)) : be(UInt64(data.count), 4)
            body += ascii(id) + size + [0, 0] + data
        }
        return ascii("ID3") + [major, 0, 0] + syncsafe(UInt64(body.count)) + body
    }

    static func syncsafe(_ v: UInt64) -> [UInt8] { [UInt8((v >> 21) & 0x7F), UInt8((v >> 14) & 0x7F), UInt8((v >> 7) & 0x7F), UInt8(v & 0x7F)] }

    // MARK: FLAC

    /// A STREAMINFO body: fixed 4096-sample blocks, `total` samples claimed.
    static func flacStreamInfo(total: UInt64, rate: UInt64 = 48000, channels: UInt64 = 1, bits: UInt64 = 16) -> [UInt8] {
        let packed = rate << 44 | (channels - 1) << 41 | (bits - 1) << 36 | total
        return be(4096, 2) + be(4096, 2) + be(0, 3) + be(0, 3) + be(packed, 8) + [UInt8](repeating: 0, count: 16)
    }

    /// Frame `number` of a mono 16-bit fixed-blocksize stream: 4096 samples of silence
    /// (one constant subframe), with valid CRC-8 and CRC-16.
    static func flacFrame(number: UInt64) -> [UInt8] {
        // Block size code 12 (4096), rate from STREAMINFO; mono, 16 bits.
        var f: [UInt8] = [0xFF, 0xF8, 0xC0, 0x08]
        f += number < 0x80 ? [UInt8(number)] : [0xC0 | UInt8(number >> 6), 0x80 | UInt8(number & 0x3F)]
        f.append(FLACFrames.crc8(f[...]))
        f += [0x00, 0x00, 0x00]
        return f + be(UInt64(FLACFrames.crc16(f[...])), 2)
    }

    /// A native FLAC file whose STREAMINFO claims `total` samples, followed by `frames`
    /// frames (of 4096 samples each) and then `tail`.
    static func flac(total: UInt64, frames: Int, tail: [UInt8] = []) -> [UInt8] {
        var b = ascii("fLaC") + [0x80, 0, 0, 34] + flacStreamInfo(total: total)
        for n in 0..<frames { b += flacFrame(number: UInt64(n)) }
        return b + tail
    }

    // MARK: CAF

    /// A CAF of 8 kHz mono 16-bit PCM holding `audioBytes` bytes, with a packet table
    /// claiming `validFrames` when given.
    static func caf(audioBytes: Int, validFrames: UInt64? = nil) -> [UInt8] {
        func cafChunk(_ type: String, _ body: [UInt8]) -> [UInt8] { ascii(type) + be(UInt64(body.count), 8) + body }
        let desc = be(8000.0.bitPattern, 8) + ascii("lpcm") + be(0, 4) + be(2, 4) + be(1, 4) + be(1, 4) + be(16, 4)
        var b = ascii("caff") + be(1, 2) + be(0, 2) + cafChunk("desc", desc)
        if let validFrames { b += cafChunk("pakt", be(UInt64(audioBytes / 2), 8) + be(validFrames, 8) + be(0, 4) + be(0, 4)) }
        return b + cafChunk("data", be(0, 4) + [UInt8](repeating: 0, count: audioBytes))
    }
}
