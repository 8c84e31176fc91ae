/// Walks Matroska clusters to find when the last audio block ends, for files whose Info
/// has no Duration (browser `MediaRecorder` output, live streams).
struct ClusterWalk {
    /// End of the last audio block seen, in TimecodeScale ticks.
    private(set) var endTicks: Int64?
    /// For an unknown-size cluster: where it turned out to end.
    var endOfUnknown: UInt64?
    /// A cluster ended inside an element: the file was cut short there.
    private(set) var cutShort = false
    private var lastStart: Int64?
    private var previousStart: Int64?
    private var lastDuration: Int64?

    /// Reads the cluster's Timecode and block timestamps. Known-size clusters are walked
    /// child by child too, but only block headers (a few bytes) are read.
    mutating func visit(_ src: some ByteSource, _ cluster: EBMLElement, track: UInt64?) throws(MediaError) {
        var clusterTime: Int64 = 0
        var pos = cluster.dataStart
        var n = 0
        // Each child advances pos by at least its header, and n caps the count.
        while pos < cluster.end, n < 10_000_000 {
            n += 1
            let e: EBMLElement
            do {
                e = try EBML.element(src, at: pos, limit: cluster.end)
            } catch {
                // A recording cut off mid-block: keep what was read.
                if cluster.size == nil {
                    cutShort = true
                    break
                }
                throw error
            }
            if cluster.size == nil, MatroskaParser.topLevel.contains(e.id) { break }  // unknown size ends here
            guard let size = e.size else { break }
            switch e.id {
            case 0xE7:
                clusterTime = EBML.int(try EBML.data(src, e, cap: 8))
            case 0xA3:
                try block(src, at: e.dataStart, size: size, clusterTime: clusterTime, duration: nil, track: track)
            case 0xA0:
                var blockAt: (UInt64, UInt64)?
                var dur: Int64?
                try MatroskaParser.children(src, e) { c, d throws(MediaError) in
                    if c.id == 0xA1, let s = c.size { blockAt = (c.dataStart, s) }
                    if c.id == 0x9B { dur = Int64(truncatingIfNeeded: EBML.uint(d)) }
                }
                if let (at, s) = blockAt { try block(src, at: at, size: s, clusterTime: clusterTime, duration: dur, track: track) }
            default: break
            }
            guard e.end > pos else { break }
            pos = e.end
        }
        if cluster.size == nil { endOfUnknown = pos }
    }

    /// Block header: track number (vint), relative timecode (i16), flags.
    private mutating func block(_ src: some ByteSource, at: UInt64, size: UInt64, clusterTime: Int64, duration: Int64?, track: UInt64?) throws(MediaError) {
        let h = try src.read(at: at, count: Int(min(size, 12)))
        guard let (number, len) = EBML.vint(h, 0), len + 2 <= h.count else { return }
        if let track, track != number { return }
        let rel = Int64(Int16(bitPattern: UInt16(h[len]) << 8 | UInt16(h[len + 1])))
        let start = clusterTime &+ rel  // wrapping: hostile timecodes must not trap
        if let last = lastStart, start > last { previousStart = last }
        lastStart = start
        if let duration { lastDuration = duration } else if let prev = previousStart { lastDuration = start &- prev }
        endTicks = start &+ max(0, lastDuration ?? 0)
    }
}
