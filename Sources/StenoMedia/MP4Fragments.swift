/// Duration of fragmented MP4 (`moof` + `mdat` pairs, e.g. Safari `MediaRecorder` output or
/// `-movflags frag_keyframe+empty_moov`), where `moov` describes no samples.
///
/// Each track fragment's end is its `tfdt` base decode time plus the durations in its
/// `trun` boxes (per sample, or the `tfhd`/`trex` default); the latest end wins.
struct MP4Fragments {
    /// End of the last fragment of the sound track, in media timescale units.
    private(set) var end: UInt64?
    /// `end` before the last `moof` was added.
    private var endBeforeLast: UInt64?
    private var trexDefaultDuration: UInt64 = 0
    private var runningTime: UInt64 = 0

    /// Reads `trex` default sample durations from `mvex`.
    mutating func readDefaults(_ src: some ByteSource, mvex: MP4Box) throws(MediaError) {
        for c in try MP4Box.children(src, from: mvex.body, to: mvex.end) where c.type == "trex" {
            let b = try c.bytes(src, cap: 24)
            if let d = b.be(12, 4) { trexDefaultDuration = d }
        }
    }

    mutating func add(_ src: some ByteSource, moof: MP4Box, track: UInt64) throws(MediaError) {
        endBeforeLast = end
        for traf in try MP4Box.children(src, from: moof.body, to: moof.end) where traf.type == "traf" {
            var defaultDuration = trexDefaultDuration
            var base: UInt64?
            var total: UInt64 = 0
            var isOurs = true
            for c in try MP4Box.children(src, from: traf.body, to: traf.end) {
                switch c.type {
                case "tfhd":
                    let b = try c.bytes(src, cap: 40)
                    let flags = b.be(1, 3) ?? 0
                    if let id = b.be(4, 4), track != 0, id != track { isOurs = false }
                    var p = 8
                    if flags & 0x01 != 0 { p += 8 }
                    if flags & 0x02 != 0 { p += 4 }
                    if flags & 0x08 != 0, let d = b.be(p, 4) { defaultDuration = d }
                case "tfdt":
                    let b = try c.bytes(src, cap: 12)
                    base = b.first == 1 ? b.be(4, 8) : b.be(4, 4)
                case "trun":
                    total &+= try runDuration(src, c, defaultDuration: defaultDuration)
                default: break
                }
            }
            guard isOurs else { continue }
            let start = base ?? runningTime
            let fragmentEnd = start &+ total
            runningTime = fragmentEnd
            end = max(end ?? 0, fragmentEnd)
        }
    }

    /// Forgets the last `moof`'s samples (its media data was cut short).
    mutating func dropLast() {
        end = endBeforeLast
    }

    /// Sum of one `trun`'s sample durations; per-sample tables are read at most 1 MiB.
    private func runDuration(_ src: some ByteSource, _ trun: MP4Box, defaultDuration: UInt64) throws(MediaError) -> UInt64 {
        let b = try trun.bytes(src)
        guard let flags = b.be(1, 3), let count = b.be(4, 4) else { return 0 }
        guard flags & 0x100 != 0 else { return count &* defaultDuration }
        var p = 8
        if flags & 0x01 != 0 { p += 4 }
        if flags & 0x04 != 0 { p += 4 }
        let entry = 4 * [0x100, 0x200, 0x400, 0x800].filter { flags & UInt64($0) != 0 }.count
        var sum: UInt64 = 0
        var i: UInt64 = 0
        // Bounded by the sample count and by the bytes actually read.
        while i < count, let d = b.be(p, 4) {
            sum &+= d
            p += entry
            i += 1
        }
        return sum
    }
}
