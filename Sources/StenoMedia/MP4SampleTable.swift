/// How much of a sound track a cut MP4 still holds, from the track's sample table.
///
/// A file whose `moov` comes first (fast start) and whose `mdat` was cut short still
/// describes every sample: `stco`/`co64` place each chunk, `stsc` says how many samples a
/// chunk holds, `stsz` their sizes and `stts` their durations. The samples whose bytes lie
/// wholly inside the file, counted from the first until one is missing, are what a decoder
/// plays. Read only for files cut short; tables larger than ``maxTableBytes`` are not read.
enum MP4SampleTable {
    /// Largest table read (16 MiB of `stsz` is four million samples, 25 hours of AAC at 44.1 kHz).
    static let maxTableBytes = 16 << 20

    /// The duration, in the track's timescale, of the samples `stbl` places wholly before
    /// `fileEnd`; nil when a table is missing, too large or malformed.
    static func heldDuration(_ src: some ByteSource, stbl: MP4Box, fileEnd: UInt64) throws(MediaError) -> UInt64? {
        var tables: [String: [UInt8]] = [:]
        for box in try MP4Box.children(src, from: stbl.body, to: stbl.end) where ["stts", "stsz", "stsc", "stco", "co64"].contains(box.type) {
            guard box.bodySize <= UInt64(maxTableBytes) else { return nil }
            tables[box.type] = try box.bytes(src, cap: maxTableBytes)
        }
        guard let stts = tables["stts"], let stsz = tables["stsz"], let stsc = tables["stsc"],
            let offsets = chunkOffsets(tables["stco"], tables["co64"]),
            let fixedSize = stsz.be(4, 4), let sampleCount = stsz.be(8, 4), sampleCount > 0
        else { return nil }
        let chunksStart = runs(stsc)
        var sample: UInt64 = 0
        var run = 0
        chunks: for (index, offset) in offsets.enumerated() {
            let chunk = UInt64(index + 1)
            while run + 1 < chunksStart.count, chunksStart[run + 1].firstChunk <= chunk { run += 1 }
            guard run < chunksStart.count else { return nil }
            let inChunk = min(chunksStart[run].samples, sampleCount - sample)
            if fixedSize != 0 {
                // Samples of one size (PCM): counted, not walked (the count may be in the billions).
                let fit = offset > fileEnd ? 0 : (fileEnd - offset) / fixedSize
                sample += min(inChunk, fit)
                if fit < inChunk { break }
                continue
            }
            // Each size is read from the table, so the walk ends with the table.
            var end = offset
            for _ in 0..<inChunk {
                guard let size = stsz.be(12 + Int(sample) * 4, 4) else { return nil }
                end &+= size
                guard end <= fileEnd else { break chunks }
                sample += 1
            }
            if sample == sampleCount { break }
        }
        return duration(ofFirst: sample, stts)
    }

    /// `stco` (32-bit) or `co64` (64-bit) chunk offsets.
    private static func chunkOffsets(_ stco: [UInt8]?, _ co64: [UInt8]?) -> [UInt64]? {
        let (table, width) = stco.map { ($0, 4) } ?? co64.map { ($0, 8) } ?? ([], 0)
        guard width > 0, let count = table.be(4, 4), count <= UInt64((table.count - 8) / width) else { return nil }
        return (0..<Int(count)).compactMap { table.be(8 + $0 * width, width) }
    }

    /// `stsc` entries: from chunk `firstChunk` (1-based) on, `samples` samples per chunk.
    private static func runs(_ stsc: [UInt8]) -> [(firstChunk: UInt64, samples: UInt64)] {
        guard let count = stsc.be(4, 4) else { return [] }
        var out: [(UInt64, UInt64)] = []
        var p = 8
        while UInt64(out.count) < count, let first = stsc.be(p, 4), let samples = stsc.be(p + 4, 4) {
            out.append((first, samples))
            p += 12
        }
        return out
    }

    /// The summed `stts` durations of the first `samples` samples.
    private static func duration(ofFirst samples: UInt64, _ stts: [UInt8]) -> UInt64? {
        guard let count = stts.be(4, 4) else { return nil }
        var left = samples
        var total: UInt64 = 0
        var p = 8
        var entry: UInt64 = 0
        while left > 0, entry < count, let run = stts.be(p, 4), let delta = stts.be(p + 4, 4) {
            let taken = min(run, left)
            total &+= taken &* delta
            left -= taken
            p += 8
            entry += 1
        }
        return left == 0 ? total : nil
    }
}
