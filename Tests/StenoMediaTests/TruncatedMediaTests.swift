import Foundation
import Testing
@testable import StenoMedia

/// A file cut short in its audio data stays readable at the length it holds, with a
/// warning — for the containers whose cut was read silently or refused: MP4/M4A (fast
/// start, sample tables placing each sample), Matroska/WebM (known Duration or a live
/// recording) and Ogg.
@Suite("Files cut short in their audio data")
struct TruncatedMediaTests {
    func probe(_ b: [UInt8]) throws(MediaError) -> MediaInfo { try MediaProbe.probe(MemoryByteSource(b)) }

    // MARK: MP4 / M4A

    @Test func m4aCutInItsMediaDataHoldsTheSamplesItsTablesPlaceInside() throws {
        // 100 AAC frames of 50 bytes (2.3 s), ten per chunk; the file keeps 2,600 bytes of them.
        let whole = Bytes.m4aWithSampleTable(frames: 100, frameBytes: 50, perChunk: 10)
        let wholeInfo = try probe(whole)
        #expect(abs(wholeInfo.duration - 102_400 / 44100.0) < 0.001 && wholeInfo.warnings.isEmpty)
        let mediaStart = whole.count - 5000
        let info = try probe(Array(whole.prefix(mediaStart + 2600)))
        #expect(abs(info.duration - 52 * 1024 / 44100.0) < 0.001, "\(info.duration)")
        #expect(info.warnings == ["truncated: header says 2.3 s, data holds 1.2 s"])
    }

    @Test func m4aCutWithoutSampleTablesKeepsTheShareOfItsMediaData() throws {
        // Two seconds in 4,000 bytes of media data, of which the file keeps 1,000.
        let whole = Bytes.m4a(created: 0, seconds: 2, mdat: Bytes.box("mdat", [UInt8](repeating: 1, count: 4000)))
        let info = try probe(Array(whole.prefix(whole.count - 3000)))
        #expect(abs(info.duration - 0.5) < 0.01, "\(info.duration)")
        #expect(info.warnings == ["truncated: header says 2.0 s, data holds about 0.5 s"])
    }

    @Test func m4aCutBeforeItsFirstSampleIsTruncated() {
        let whole = Bytes.m4aWithSampleTable(frames: 10, frameBytes: 50, perChunk: 10)
        let e = probeBytes(Array(whole.prefix(whole.count - 500 + 20)))
        guard case .failure(let error) = e else { Issue.record("a file holding no whole sample was read: \(e)"); return }
        #expect(error.kind == .truncated && error.message.contains("before its first whole sample"), "\(error)")
    }

    // MARK: Matroska / WebM

    @Test func webmWithADurationCutInItsClusterHoldsItsWholeBlocks() throws {
        // Info says 2 s; 100 blocks of 20 ms; the file ends inside block 51.
        let whole = Bytes.webm(durationMilliseconds: 2000, blocks: 100)
        #expect(try probe(whole).warnings.isEmpty)
        let cut = try probe(Array(whole.prefix(whole.count - 49 * 16 - 5)))
        #expect(abs(cut.duration - 1.0) < 0.001, "\(cut.duration)")
        #expect(cut.warnings == ["truncated: header says 2.0 s, data holds 1.0 s"])
    }

    @Test func liveWebmCutInsideABlockSaysSo() throws {
        let whole = Bytes.webm(durationMilliseconds: nil, blocks: 50)
        #expect(try probe(whole).warnings.isEmpty)
        let cut = try probe(Array(whole.prefix(whole.count - 5)))
        #expect(abs(cut.duration - 0.98) < 0.001, "\(cut.duration)")
        #expect(cut.warnings == ["truncated: the file ends inside its last cluster; data holds 1.0 s"])
    }

    // MARK: Ogg

    @Test func oggCutInsideAPageOrWithoutItsLastPageSaysSo() throws {
        let whole = Bytes.oggOpus(audioPages: 10, endOfStream: true)
        let info = try probe(whole)
        #expect(abs(info.duration - 10) < 0.001 && info.warnings.isEmpty)
        let cut = try probe(Array(whole.prefix(whole.count - 10)))
        #expect(abs(cut.duration - 9) < 0.001)
        #expect(cut.warnings == ["truncated: the file ends inside a page; data holds 9.0 s"])
        let unfinished = try probe(Bytes.oggOpus(audioPages: 10, endOfStream: false))
        #expect(unfinished.warnings == ["truncated: the stream has no end-of-stream page; data holds 10.0 s"])
    }

    // MARK: Every cut

    @Test("every cut of these files is a typed error, or at most as long as the whole with a warning", .timeLimit(.minutes(3)))
    func everyCutIsNoLongerAndWarned() throws {
        let files: [(String, [UInt8])] = [
            ("m4a", Bytes.m4aWithSampleTable(frames: 40, frameBytes: 30, perChunk: 7)),
            ("webm", Bytes.webm(durationMilliseconds: 800, blocks: 40)), ("live webm", Bytes.webm(durationMilliseconds: nil, blocks: 40)),
            ("ogg", Bytes.oggOpus(audioPages: 6, endOfStream: true)),
        ]
        for (name, bytes) in files {
            let whole = try probe(bytes)
            for cut in 0..<bytes.count {
                guard case .success(let info) = probeBytes(Array(bytes.prefix(cut))) else { continue }
                #expect(info.duration <= whole.duration + 0.001, "\(name) cut at \(cut): \(info.duration) s > \(whole.duration) s")
                // A live recording cut between two blocks is a whole one as far as its bytes tell.
                guard name != "live webm" else { continue }
                #expect(!info.warnings.isEmpty, "\(name) cut at \(cut) of \(bytes.count) read silently")
            }
        }
    }
}

extension Bytes {
    /// A fast-start AAC M4A (44.1 kHz) whose sample table places `frames` frames of
    /// `frameBytes` bytes, `perChunk` to a chunk, in the `mdat` that ends the file.
    static func m4aWithSampleTable(frames: Int, frameBytes: Int, perChunk: Int) -> [UInt8] {
        let chunks = (frames + perChunk - 1) / perChunk
        func moov(firstOffset: UInt64) -> [UInt8] {
            let stts = fullBox("stts", be(1, 4) + be(UInt64(frames), 4) + be(1024, 4))
            let stsz = fullBox("stsz", be(0, 4) + be(UInt64(frames), 4) + (0..<frames).flatMap { _ in be(UInt64(frameBytes), 4) })
            let stsc = fullBox("stsc", be(1, 4) + be(1, 4) + be(UInt64(perChunk), 4) + be(1, 4))
            let stco = fullBox("stco", be(UInt64(chunks), 4) + (0..<chunks).flatMap { be(firstOffset + UInt64($0 * perChunk * frameBytes), 4) })
            let stsd = fullBox("stsd", be(1, 4) + mp4aEntry(rate: 44100, rateIndex: 4, channels: 1))
            let hdlr = fullBox("hdlr", be(0, 4) + ascii("soun") + [UInt8](repeating: 0, count: 13))
            let stbl = box("stbl", stsd + stts + stsz + stsc + stco)
            let trak = box("trak", box("mdia", mdhd(timescale: 44100, duration: UInt64(frames * 1024)) + hdlr + box("minf", stbl)))
            return box("moov", mvhd(created: 0, duration: UInt64(frames * 1024 * 1000 / 44100)) + trak)
        }
        let ftyp = box("ftyp", ascii("M4A ") + be(0, 4) + ascii("isom"))
        let head = ftyp + moov(firstOffset: 0)
        return ftyp + moov(firstOffset: UInt64(head.count + 8)) + box("mdat", [UInt8](repeating: 0x21, count: frames * frameBytes))
    }

    /// A WebM of `blocks` Opus blocks 20 ms apart (16 bytes each) in one cluster; with a
    /// Duration and known sizes, or written live (unknown sizes, no Duration).
    static func webm(durationMilliseconds: Double?, blocks: Int) -> [UInt8] {
        var info = ebmlUInt(0x2AD7B1, 1_000_000)
        if let durationMilliseconds { info += ebml(0x4489, be(durationMilliseconds.bitPattern, 8)) }
        let tracks = ebml(0x1654AE6B, ebml(0xAE, ebmlUInt(0xD7, 1) + ebmlUInt(0x83, 2) + ebml(0x86, ascii("A_OPUS")) + ebml(0xE1, ebmlUInt(0x9F, 2))))
        var cluster = ebmlUInt(0xE7, 0)
        for k in 0..<blocks { cluster += simpleBlock(track: 1, time: Int16(k * 20)) }
        let live = durationMilliseconds == nil
        return ebml(0x1A45DFA3, ebml(0x4282, ascii("webm")))
            + ebml(0x18538067, ebml(0x1549A966, info) + tracks + ebml(0x1F43B675, cluster, unknown: live), unknown: live)
    }

    /// An Ogg Opus stream: head and tags pages, then `audioPages` pages of one second each
    /// (no pre-skip), the last flagged end-of-stream when `endOfStream`.
    static func oggOpus(audioPages: Int, endOfStream: Bool) -> [UInt8] {
        func page(_ packet: [UInt8], granule: UInt64, seq: UInt64, flags: UInt8) -> [UInt8] {
            ascii("OggS") + [0, flags] + le(granule, 8) + le(7, 4) + le(seq, 4) + [0, 0, 0, 0] + [1, UInt8(packet.count)] + packet
        }
        let head = ascii("OpusHead") + [1, 1] + le(0, 2) + le(48000, 4) + [0, 0, 0]
        var b = page(head, granule: 0, seq: 0, flags: 2) + page(ascii("OpusTags") + le(0, 4) + le(0, 4), granule: 0, seq: 1, flags: 0)
        for k in 1...audioPages {
            let last = k == audioPages && endOfStream
            b += page([0xFC] + [UInt8](repeating: 0x55, count: 40), granule: UInt64(k * 48000), seq: UInt64(k + 1), flags: last ? 4 : 0)
        }
        return b
    }
}
