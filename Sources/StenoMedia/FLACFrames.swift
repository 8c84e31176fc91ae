/// The length a FLAC stream's frames hold, read from its last complete frame.
///
/// STREAMINFO's sample count is a claim; the frames are what plays. Every frame header
/// carries its position (frame number for fixed-size blocks, sample number for variable
/// ones) and its block size, and every frame ends with a CRC-16 over itself. So the last
/// frame whose header and CRC check out gives the decoded length without decoding:
/// its first sample plus its block size.
enum FLACFrames {
    /// Most bytes read from the end of the stream when looking for the last frame.
    static let maxTailWindow = 4 << 20
    /// Longest frame header: sync and codes (4), coded number (7), block size (2), rate (2), CRC-8 (1).
    static let maxHeaderBytes = 16
    /// Most header candidates checked in that window (bounds the CRC work on odd data).
    static let maxCandidates = 64

    /// One parsed frame header.
    struct Header: Equatable {
        /// First sample of the frame, counted from the start of the stream.
        var firstSample: UInt64
        /// Samples per channel in the frame.
        var blockSize: UInt64
    }

    /// Samples per channel the frames between `audioStart` and the end of `src` hold, or
    /// nil when no complete frame is found near the end. `fixedBlockSize` is STREAMINFO's
    /// block size for fixed-blocksize streams (frame number × block size = first sample);
    /// `maxFrameSize` its largest frame (0: unknown), so that two frames are read.
    static func decodedSamples(
        _ src: some ByteSource, audioStart: UInt64, fixedBlockSize: UInt64, maxFrameSize: UInt64
    ) throws(MediaError) -> UInt64? {
        let audioBytes = src.remaining(after: audioStart)
        guard audioBytes >= 10 else { return nil }
        let window = maxFrameSize > 0 ? min(UInt64(maxTailWindow), 2 * maxFrameSize + 64) : UInt64(maxTailWindow)
        let count = Int(min(audioBytes, window))
        let windowStart = src.size - UInt64(count)
        let b = try src.read(at: windowStart, count: count)
        guard b.count == count else { return nil }
        var end = b.count
        var candidates = 0
        var i = b.count - 2
        while i >= 0, candidates < maxCandidates {
            defer { i -= 1 }
            guard b[i] == 0xFF, b[i + 1] & 0xFE == 0xF8 else { continue }
            guard let header = parseHeader(b, at: i, fixedBlockSize: fixedBlockSize) else {
                // A header the end of the file cut off still ends the frame before it.
                if i + maxHeaderBytes > b.count { end = i }
                continue
            }
            candidates += 1
            // A frame runs to the next frame's header (or the end); its last two bytes are its CRC-16.
            if end - i >= 4, let stored = b.be(end - 2, 2), crc16(b[i..<(end - 2)]) == UInt16(stored) {
                return header.firstSample &+ header.blockSize
            }
            end = i
        }
        return nil
    }

    /// The frame header at `i`, when every field is valid and its CRC-8 matches.
    static func parseHeader(_ b: [UInt8], at i: Int, fixedBlockSize: UInt64) -> Header? {
        guard i + 6 <= b.count else { return nil }
        let variable = b[i + 1] & 1 == 1
        let sizeCode = b[i + 2] >> 4
        let rateCode = b[i + 2] & 0x0F
        let channelCode = b[i + 3] >> 4
        let depthCode = (b[i + 3] >> 1) & 0x7
        guard sizeCode != 0, rateCode != 15, channelCode <= 10, depthCode != 3, b[i + 3] & 1 == 0 else { return nil }
        var p = i + 4
        guard let number = codedNumber(b, at: &p, maxBytes: variable ? 7 : 6) else { return nil }
        var blockSize: UInt64
        switch sizeCode {
        case 1: blockSize = 192
        case 2...5: blockSize = 576 << UInt64(sizeCode - 2)
        case 6:
            guard p < b.count else { return nil }
            blockSize = UInt64(b[p]) + 1
            p += 1
        case 7:
            guard let v = b.be(p, 2) else { return nil }
            blockSize = v + 1
            p += 2
        default: blockSize = 256 << UInt64(sizeCode - 8)
        }
        switch rateCode {
        case 12: p += 1
        case 13, 14: p += 2
        default: break
        }
        guard p < b.count, crc8(b[i..<p]) == b[p] else { return nil }
        if !variable {
            guard fixedBlockSize > 0 else { return nil }
            return Header(firstSample: number &* fixedBlockSize, blockSize: blockSize)
        }
        return Header(firstSample: number, blockSize: blockSize)
    }

    /// FLAC's UTF-8-like coded frame or sample number.
    static func codedNumber(_ b: [UInt8], at p: inout Int, maxBytes: Int) -> UInt64? {
        guard p < b.count else { return nil }
        let first = b[p]
        let extra = first < 0x80 ? 0 : first.leadingZeroBitCount == 0 ? (~first).leadingZeroBitCount - 1 : -1
        guard extra >= 0, extra + 1 <= maxBytes, first != 0xFF, extra != 0 || first < 0x80, p + extra < b.count else { return nil }
        var value = UInt64(first & (0x7F >> UInt8(extra == 0 ? 0 : extra + 1)))
        for k in 0..<extra {
            let c = b[p + 1 + k]
            guard c & 0xC0 == 0x80 else { return nil }
            value = value << 6 | UInt64(c & 0x3F)
        }
        p += extra + 1
        return value
    }

    /// CRC-8, polynomial x^8 + x^2 + x + 1, over a frame header.
    static func crc8(_ bytes: ArraySlice<UInt8>) -> UInt8 {
        var crc: UInt8 = 0
        for byte in bytes {
            crc ^= byte
            for _ in 0..<8 { crc = crc & 0x80 != 0 ? (crc << 1) ^ 0x07 : crc << 1 }
        }
        return crc
    }

    /// CRC-16, polynomial x^16 + x^15 + x^2 + 1, over a whole frame but its last two bytes.
    static func crc16(_ bytes: ArraySlice<UInt8>) -> UInt16 {
        var crc: UInt16 = 0
        for byte in bytes {
            crc ^= UInt16(byte) << 8
            for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x8005 : crc << 1 }
        }
        return crc
    }
}
