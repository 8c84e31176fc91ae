import Foundation

/// Native FLAC: STREAMINFO for format and length, VORBIS_COMMENT for tags and DATE.
enum FLACParser {
    private static let name = "FLAC"

    static func parse(_ src: some ByteSource, at start: UInt64, id3: ID3Tag?) throws(MediaError) -> MediaInfo {
        var pos = start + 4
        var streamInfo: [UInt8]?
        var tags = TagSet()
        var isLast = false
        var blocks = 0
        var warnings: [String] = []
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
        let audioBytes = src.remaining(after: pos)
        guard audioBytes > 0 else { throw MediaError.noAudio(name, at: nil, "the stream ends after its metadata, with no frames") }
        let declaredBlock = si.be(2, 2) ?? 0
        let blockLimit = (16...65535).contains(declaredBlock) ? declaredBlock : 65535
        let frames = try FLACFrames.decodedSamples(src, audioStart: pos, fixedBlockSize: si.be(0, 2) ?? 0, maxFrameSize: si.be(7, 3) ?? 0)
        let samples = try length(
            claimed: total, frames: frames, audioBytes: audioBytes, blockLimit: blockLimit,
            smallestFrame: max(si.be(4, 3) ?? 0, UInt64(8 + channels)), sampleRate: sampleRate, at: start + 8, warnings: &warnings)
        if let id3 { for (k, v) in id3.tags.values { tags.add(k, v) } }
        let info = MediaInfo(
            format: .flac, codec: "flac", duration: Double(samples) / Double(sampleRate), sampleRate: sampleRate,
            channels: channels, bitsPerSample: bits, creationTime: tags.creationTime, tags: tags.values, warnings: warnings)
        return try info.validated(name)
    }

    /// The samples the stream holds: STREAMINFO's count when the bytes can hold it and the
    /// frames agree, else the frames' own count (with a warning), else a failure saying why.
    /// `smallestFrame` is the fewest bytes one frame can take (header, one byte per
    /// subframe, CRC), so the audio bytes hold at most that many frames of `blockLimit`.
    private static func length(
        claimed: UInt64, frames: UInt64?, audioBytes: UInt64, blockLimit: UInt64, smallestFrame: UInt64, sampleRate: Int,
        at offset: UInt64, warnings: inout [String]
    ) throws(MediaError) -> UInt64 {
        let rate = Double(sampleRate)
        guard claimed > 0 else {
            if let frames, frames > 0 { return frames }
            throw MediaError.unsupported(name, at: offset, "STREAMINFO has no total sample count (stream length unknown) and no complete frame was found")
        }
        let mostSamples = min(audioBytes / smallestFrame + 1, UInt64.max / blockLimit) * blockLimit
        if claimed > mostSamples {
            guard let frames, frames > 0 else {
                throw MediaError.invalid(
                    name, at: offset,
                    "STREAMINFO claims \(claimed) samples (\(seconds(claimed, rate)) s) but the \(audioBytes) bytes of audio can hold at most \(mostSamples) and no complete frame was found")
            }
            warnings.append("implausible length: STREAMINFO says \(seconds(claimed, rate)) s, more than \(audioBytes) bytes can hold; the frames hold \(seconds(frames, rate)) s")
            return frames
        }
        // Short by more than a second and two blocks: the file was cut (the last block may be short anyway).
        if let frames, frames > 0, frames < claimed, claimed - frames > max(2 * blockLimit, UInt64(sampleRate)) {
            warnings.append("truncated: header says \(seconds(claimed, rate)) s, data holds \(seconds(frames, rate)) s")
            return frames
        }
        return claimed
    }

    private static func seconds(_ samples: UInt64, _ rate: Double) -> String { String(format: "%.1f", Double(samples) / rate) }
}
