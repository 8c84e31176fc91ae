import Foundation

/// RIFF/WAVE, RF64/BW64 and Broadcast Wave (`bext`).
///
/// Walks the chunk list header by header (only `fmt `, `ds64`, `bext`, `fact` and
/// `LIST`/`INFO` bodies are read; `data` is skipped by arithmetic).
enum WAVParser {
    private static let name = "WAV"

    struct Fmt {
        var formatTag: UInt16
        var channels: Int
        var sampleRate: Int
        var byteRate: Int
        var blockAlign: Int
        var bits: Int
    }

    static func parse(_ src: some ByteSource, at start: UInt64, id3: ID3Tag?) throws(MediaError) -> MediaInfo {
        let head = try src.readExactly(at: start, count: 12, format: name, what: "RIFF header")
        let isRF64 = !head.matches("RIFF", at: 0)
        let format: MediaFormat = isRF64 ? .rf64 : .wav
        let fname = isRF64 ? "RF64" : name
        var fmt: Fmt?
        var ds64DataSize: UInt64?
        var factSamples: UInt64?
        var dataSize: UInt64?
        var tags = TagSet()
        var bextTime: Date?
        var isBWF = false
        var truncatedFrom: UInt64?
        var warnings: [String] = []
        var pos = start + 12
        var iterations = 0
        // Each chunk advances `pos` by at least 8 bytes; the cap guards against pathological lists.
        while pos + 8 <= src.size, iterations < 100_000 {
            iterations += 1
            let h = try src.readExactly(at: pos, count: 8, format: fname, what: "chunk header")
            let id = fourCCString(h[0..<4])
            let size32 = UInt64(h.le(4, 4) ?? 0)
            let body = pos + 8
            let avail = src.remaining(after: body)
            switch id {
            case "ds64":
                let b = try src.readExactly(at: body, count: Int(min(size32, 28)), format: fname, what: "'ds64' chunk at offset \(pos)")
                guard b.count >= 24 else { throw MediaError.invalid(fname, at: pos, "'ds64' chunk is \(size32) bytes, expected at least 24") }
                ds64DataSize = b.le(8, 8)
                if let n = b.le(16, 8), n > 0 { factSamples = n }
            case "fmt ":
                guard size32 >= 16 else { throw MediaError.invalid(fname, at: pos, "'fmt ' chunk is \(size32) bytes, expected at least 16") }
                let b = try src.readExactly(at: body, count: Int(min(size32, 40)), format: fname, what: "'fmt ' chunk at offset \(pos)")
                var tag = UInt16(b.le(0, 2) ?? 0)
                if tag == 0xFFFE, b.count >= 26, let sub = b.le(24, 2) { tag = UInt16(sub) }
                fmt = Fmt(formatTag: tag, channels: Int(b.le(2, 2) ?? 0), sampleRate: Int(b.le(4, 4) ?? 0),
                          byteRate: Int(b.le(8, 4) ?? 0), blockAlign: Int(b.le(12, 2) ?? 0), bits: Int(b.le(14, 2) ?? 0))
            case "fact":
                if factSamples == nil, size32 >= 4, let b = try? src.readExactly(at: body, count: 4, format: fname, what: "'fact'") {
                    factSamples = b.le(0, 4)
                }
            case "bext":
                isBWF = true
                if size32 >= 346, let b = try? src.readExactly(at: body, count: 346, format: fname, what: "'bext'") {
                    readBext(b, into: &tags, time: &bextTime)
                }
            case "LIST":
                if size32 >= 4, size32 <= UInt64(MediaLimits.maxMetadataBytes), size32 <= avail {
                    let b = try src.readExactly(at: body, count: Int(size32), format: fname, what: "'LIST' chunk")
                    if b.matches("INFO", at: 0) { readInfo(b, into: &tags) }
                }
            case "data":
                var size = size32
                if isRF64, size32 == 0xFFFF_FFFF, let big = ds64DataSize { size = big }
                // A recorder that crashed leaves 0 or a too-large size; what is there plays.
                if size > avail, size32 != 0xFFFF_FFFF { truncatedFrom = size }
                if size == 0 || size > avail { size = avail }
                dataSize = size
            default:
                break
            }
            var chunkSize = size32
            if id == "data", let d = dataSize { chunkSize = d }
            let next = body &+ chunkSize &+ (chunkSize & 1)
            guard next > pos else { break }
            pos = next
        }
        guard let fmt else { throw MediaError.invalid(fname, at: start, "no 'fmt ' chunk found") }
        guard let dataSize else { throw MediaError.truncated(fname, at: pos, "no 'data' chunk before the end of the file") }
        guard fmt.sampleRate > 0 else { throw MediaError.invalid(fname, at: start, "sample rate is 0") }
        guard fmt.channels > 0 else { throw MediaError.invalid(fname, at: start, "channel count is 0") }
        let codec = codecName(fmt)
        guard dataSize > 0, !isPCMLike(fmt.formatTag) || dataSize >= UInt64(max(fmt.blockAlign, 1)) else {
            throw MediaError.noAudio(fname, at: nil, "the 'data' chunk is empty")
        }
        let duration: Double
        // What the bytes hold, to check a 'fact' count against: compressed audio's average byte rate.
        let held = fmt.byteRate > 0 ? Double(dataSize) / Double(fmt.byteRate) : nil
        if isPCMLike(fmt.formatTag) {
            guard fmt.blockAlign > 0 else { throw MediaError.invalid(fname, at: start, "block align is 0") }
            duration = Double(dataSize / UInt64(fmt.blockAlign)) / Double(fmt.sampleRate)
            if let claimed = truncatedFrom {
                let said = Double(claimed / UInt64(fmt.blockAlign)) / Double(fmt.sampleRate)
                warnings.append("truncated: header says \(String(format: "%.1f", said)) s, data holds \(String(format: "%.1f", duration)) s")
            }
        } else if let n = factSamples, n > 0, held.map({ Double(n) / Double(fmt.sampleRate) <= 2 * $0 + 1 }) ?? true {
            duration = Double(n) / Double(fmt.sampleRate)
        } else {
            guard let held else { throw MediaError.invalid(fname, at: start, "byte rate is 0 for codec \(codec)") }
            if let n = factSamples, n > 0 {
                let said = Double(n) / Double(fmt.sampleRate)
                warnings.append("implausible length: 'fact' says \(String(format: "%.1f", said)) s, the data holds about \(String(format: "%.1f", held)) s")
            }
            duration = held
        }
        if let id3 { for (k, v) in id3.tags.values { tags.add(k, v) } }
        let info = MediaInfo(
            format: format, codec: codec, duration: duration, sampleRate: fmt.sampleRate, channels: fmt.channels,
            bitsPerSample: fmt.bits > 0 ? fmt.bits : nil, creationTime: bextTime ?? tags.creationTime,
            tags: tags.values, isBroadcastWave: isBWF, warnings: warnings)
        return try info.validated(fname)
    }

    private static func isPCMLike(_ tag: UInt16) -> Bool { tag == 1 || tag == 3 || tag == 6 || tag == 7 }

    static func codecName(_ f: Fmt) -> String {
        switch f.formatTag {
        case 1:
            switch f.bits {
            case 8: return "pcm_u8"
            case 24: return "pcm_s24le"
            case 32: return "pcm_s32le"
            default: return "pcm_s16le"
            }
        case 3: return f.bits == 64 ? "pcm_f64le" : "pcm_f32le"
        case 6: return "pcm_alaw"
        case 7: return "pcm_mulaw"
        case 2: return "adpcm_ms"
        case 0x11: return "adpcm_ima_wav"
        case 0x50: return "mp2"
        case 0x55: return "mp3"
        default: return "wav_0x" + String(f.formatTag, radix: 16)
        }
    }

    /// Broadcast Wave: description (256), originator (32), reference (32),
    /// OriginationDate "yyyy-mm-dd" (10) and OriginationTime "hh:mm:ss" (8).
    /// BWF has no time zone; the time is taken as UTC.
    private static func readBext(_ b: [UInt8], into tags: inout TagSet, time: inout Date?) {
        tags.add("comment", TextDecoding.latin1(b[0..<256]))
        tags.add("originator", TextDecoding.latin1(b[256..<288]))
        tags.add("originator_reference", TextDecoding.latin1(b[288..<320]))
        let date = TextDecoding.latin1(b[320..<330])
        var clock = TextDecoding.latin1(b[330..<338])
        guard date.count == 10 else { return }
        clock = String(clock.map { $0 == "-" || $0 == "." ? ":" : $0 })
        let stamp = clock.count == 8 ? "\(date)T\(clock)" : date
        tags.add("origination_date", date)
        if clock.count == 8 { tags.add("origination_time", clock) }
        time = MediaDate.parse(stamp)
    }

    /// LIST/INFO sub-chunks: 4-byte id, 4-byte size, NUL-terminated text.
    private static func readInfo(_ b: [UInt8], into tags: inout TagSet) {
        var p = 4
        while p + 8 <= b.count {
            let id = fourCCString(b[p..<(p + 4)])
            let size = Int(b.le(p + 4, 4) ?? 0)
            let end = p + 8 + size
            guard size >= 0, end <= b.count else { return }
            let value = TextDecoding.utf8(b[(p + 8)..<end])
            let key: String
            switch id {
            case "INAM": key = "title"
            case "IART": key = "artist"
            case "ICRD": key = "date"
            case "ICMT": key = "comment"
            case "ISFT": key = "encoder"
            case "IPRD": key = "album"
            case "IGNR": key = "genre"
            default: key = id
            }
            tags.add(key, value)
            p = end + (size & 1)
        }
    }
}
