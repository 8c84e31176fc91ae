/// MPEG audio frame headers and the frame scan used when no Xing/VBRI header gives the
/// frame count.
extension MP3Parser {
    /// A decoded 4-byte MPEG audio frame header.
    struct FrameHeader: Equatable {
        /// 1 = MPEG-1, 2 = MPEG-2, 25 = MPEG-2.5.
        var version: Int
        /// 1, 2 or 3.
        var layer: Int
        var bitrate: Int  // kbit/s
        var sampleRate: Int
        var padding: Int
        var channelMode: Int
        /// Whole frame length in bytes, header included.
        var length: Int
        /// Samples per channel in this frame.
        var samples: Int

        var channels: Int { channelMode == 3 ? 1 : 2 }

        /// Same stream parameters (what consecutive frames must share).
        func compatible(_ o: FrameHeader) -> Bool {
            version == o.version && layer == o.layer && sampleRate == o.sampleRate
        }

        /// Parses `b[i..<i+4]`; nil if it is not a valid header (free-format included).
        static func parse(_ b: [UInt8], _ i: Int) -> FrameHeader? {
            guard i >= 0, i + 4 <= b.count else { return nil }
            return parse(b[i], b[i + 1], b[i + 2], b[i + 3])
        }

        static func parse(_ b0: UInt8, _ b1: UInt8, _ b2: UInt8, _ b3: UInt8) -> FrameHeader? {
            guard b0 == 0xFF, b1 & 0xE0 == 0xE0 else { return nil }
            let v = Int(b1 >> 3) & 3
            let l = Int(b1 >> 1) & 3
            let bri = Int(b2 >> 4)
            let sri = Int(b2 >> 2) & 3
            guard v != 1, l != 0, bri != 0, bri != 15, sri != 3 else { return nil }
            let version = v == 3 ? 1 : (v == 2 ? 2 : 25)
            let layer = 4 - l
            let bitrate: Int
            if version == 1 {
                bitrate = [v1l1, v1l2, v1l3][layer - 1][bri]
            } else {
                bitrate = layer == 1 ? v2l1[bri] : v2l23[bri]
            }
            let rates = [44100, 48000, 32000]
            let sampleRate = rates[sri] / (version == 1 ? 1 : (version == 2 ? 2 : 4))
            let padding = Int(b2 >> 1) & 1
            let samples: Int
            let length: Int
            if layer == 1 {
                samples = 384
                length = (12 * bitrate * 1000 / sampleRate + padding) * 4
            } else {
                samples = (layer == 3 && version != 1) ? 576 : 1152
                length = (samples / 8) * bitrate * 1000 / sampleRate + padding
            }
            return FrameHeader(version: version, layer: layer, bitrate: bitrate, sampleRate: sampleRate,
                               padding: padding, channelMode: Int(b3 >> 6), length: length, samples: samples)
        }

        private static let v1l1 = [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448, 0]
        private static let v1l2 = [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384, 0]
        private static let v1l3 = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 0]
        private static let v2l1 = [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256, 0]
        private static let v2l23 = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160, 0]
    }

    /// Finds the first frame at or after `from` (within 64 KiB). With `requireSecond`, a
    /// candidate counts only if a compatible frame follows it (or it ends the file), which
    /// keeps random bytes from being taken for MP3.
    static func findFirstFrame(_ src: some ByteSource, from: UInt64, requireSecond: Bool) throws(MediaError) -> UInt64? {
        // Usually the frame is right there: try a small window (served from the read-ahead
        // block) before the full 64 KiB one.
        for windowSize in [4096, 64 * 1024] {
            let window = try src.read(at: from, count: windowSize + 4)
            var i = 0
            while i + 4 <= window.count {
                if window[i] == 0xFF, let h = FrameHeader.parse(window, i) {
                    let nextAt = i + h.length
                    if !requireSecond && i == 0 { return from }
                    if let n = FrameHeader.parse(window, nextAt), n.compatible(h) { return from + UInt64(i) }
                    if from + UInt64(nextAt) == src.size { return from + UInt64(i) }
                }
                i += 1
            }
            if UInt64(window.count) < UInt64(windowSize + 4) { break }  // the file ended inside the window
        }
        return nil
    }

    struct ScanResult {
        var frames: UInt64 = 0
        var samples: UInt64 = 0
        /// Audio bytes covered by the counted frames.
        var bytes: UInt64 = 0
        /// Where the scan stopped.
        var end: UInt64 = 0
    }

    /// Counts frames from `start` up to `limit`, reading in large blocks (one system call
    /// per 256 KiB, not per frame). Stops at the first place where no compatible frame
    /// can be found within a short resync window (ID3v1/APE tags, junk, truncation).
    static func scanFrames(_ src: some ByteSource, from start: UInt64, limit: UInt64, first: FrameHeader) throws(MediaError) -> ScanResult {
        var r = ScanResult()
        var pos = start
        let chunk = 256 * 1024
        var buf: [UInt8] = []
        var bufStart: UInt64 = 0
        // Every iteration either advances pos by a frame length (>= 21 bytes) or ends.
        while pos + 4 <= limit {
            if pos < bufStart || pos + 4 > bufStart + UInt64(buf.count) {
                buf = try src.read(at: pos, count: Int(min(UInt64(chunk), limit - pos)))
                bufStart = pos
                if buf.count < 4 { break }
            }
            let i = Int(pos - bufStart)
            if let h = FrameHeader.parse(buf, i), h.compatible(first), h.length > 4 {
                let end = pos + UInt64(h.length)
                if end > limit {
                    break  // a cut-off last frame: decoders drop it
                }
                r.frames += 1
                r.samples += UInt64(h.samples)
                r.bytes += UInt64(h.length)
                pos = end
                r.end = pos
                continue
            }
            // Lost sync: look for two compatible frames shortly ahead, else stop.
            guard let next = try resync(src, from: pos + 1, limit: limit, first: first) else { break }
            pos = next
        }
        return r
    }

    private static func resync(_ src: some ByteSource, from: UInt64, limit: UInt64, first: FrameHeader) throws(MediaError) -> UInt64? {
        guard from < limit else { return nil }
        let w = try src.read(at: from, count: Int(min(4096, limit - from)))
        var i = 0
        while i + 4 <= w.count {
            if w[i] == 0xFF, let h = FrameHeader.parse(w, i), h.compatible(first) {
                let nextAt = i + h.length
                if let n = FrameHeader.parse(w, nextAt), n.compatible(first) { return from + UInt64(i) }
            }
            i += 1
        }
        return nil
    }
}
