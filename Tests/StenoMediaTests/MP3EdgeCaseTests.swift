import Foundation
import Testing
@testable import StenoMedia

@Suite("MP3 and ID3 edge cases")
struct MP3EdgeCaseTests {
    func probe(_ b: [UInt8]) throws(MediaError) -> MediaInfo { try MediaProbe.probe(MemoryByteSource(b)) }

    @Test func lameDelayAndPaddingAreTrimmed() throws {
        var b = Bytes.xingFrame(frames: 100, delay: 576, padding: 1000)
        for _ in 0..<100 { b += Bytes.mp3Frame() }
        let info = try probe(b)
        #expect(abs(info.duration - Double(100 * 1152 - 1576) / 44100) < 1e-9)
        #expect(info.channels == 2)
        #expect(info.sampleRate == 44100)
        #expect(info.tags["encoder"] == "LAME3.100")
    }

    @Test func vbriFrameCount() throws {
        var payload = [UInt8](repeating: 0, count: 32) + Bytes.ascii("VBRI") + Bytes.be(1, 2) + Bytes.be(0, 2) + Bytes.be(75, 2)
        payload += Bytes.be(417 * 50, 4) + Bytes.be(200, 4)
        var b = Bytes.mp3Frame(payload)
        for _ in 0..<49 { b += Bytes.mp3Frame() }
        #expect(abs(try probe(b).duration - 200 * 1152 / 44100.0) < 1e-9)
        // Cut off after 20 frames: the header's counts no longer fit, so the frames are counted.
        let cut = Array(b.prefix(417 * 20))
        #expect(abs(try probe(cut).duration - 20 * 1152 / 44100.0) < 1e-9)
    }

    @Test func absurdXingFrameCountFallsBackToScan() throws {
        var b = Bytes.xingFrame(frames: 0xFFFF_FFFF, delay: 0, padding: 0)
        for _ in 0..<10 { b += Bytes.mp3Frame() }
        #expect(abs(try probe(b).duration - 11 * 1152 / 44100.0) < 1e-9)
    }

    @Test func frameScanWithoutHeaderCountsFramesAndStopsAtID3v1() throws {
        var b: [UInt8] = []
        for _ in 0..<40 { b += Bytes.mp3Frame() }
        b += Bytes.ascii("TAG") + [UInt8](repeating: 0x20, count: 125)
        #expect(abs(try probe(b).duration - 40 * 1152 / 44100.0) < 1e-9)
        // Garbage in the middle is skipped by resynchronisation.
        var g: [UInt8] = []
        for k in 0..<20 { g += Bytes.mp3Frame(); if k == 9 { g += [1, 2, 3, 4, 5] } }
        #expect(abs(try probe(g).duration - 20 * 1152 / 44100.0) < 1e-9)
    }

    @Test func id3v23DateFromTYERTDATTIME() throws {
        func text(_ s: String) -> [UInt8] { [0] + Bytes.ascii(s) }
        let tag = Bytes.id3(major: 3, frames: [("TYER", text("2026")), ("TDAT", text("2011")), ("TIME", text("0930")),
                                               ("TIT2", [1, 0xFF, 0xFE, 0x53, 0, 0x74, 0]),
                                               ("TXXX", [3] + Bytes.ascii("iCalUId") + [0] + Bytes.ascii("abc-123@corp.example"))])
        var b = tag
        for _ in 0..<5 { b += Bytes.mp3Frame() }
        let info = try probe(b)
        #expect(info.creationTime == MediaDate.parse("2026-11-20T09:30:00Z"))
        #expect(info.tags["title"] == "St")
        #expect(info.tags["icaluid"] == "abc-123@corp.example")
    }

    @Test func id3v24TDRCAndTagBeforeFLAC() throws {
        let tag = Bytes.id3(major: 4, frames: [("TDRC", [3] + Bytes.ascii("2026-11-20T09:30:00"))])
        var b = tag
        for _ in 0..<5 { b += Bytes.mp3Frame() }
        #expect(try probe(b).creationTime == MediaDate.parse("2026-11-20T09:30:00Z"))
        // An ID3 tag in front of another container is skipped, detection is by content.
        var si = [UInt8](repeating: 0, count: 34)
        si.replaceSubrange(10..<18, with: Bytes.be(8000 << 44 | 15 << 36 | 8000, 8))
        let flac = tag + Bytes.ascii("fLaC") + [0x80, 0, 0, 34] + si + [UInt8](repeating: 0, count: 100)
        #expect(try MediaProbe.detectFormat(MemoryByteSource(flac)) == .flac)
        let info = try probe(flac)
        #expect(info.format == .flac)
        #expect(info.duration == 1.0)
    }

    @Test func id3TagClaimingMoreThanTheFileIsTruncated() {
        let b = Bytes.ascii("ID3") + [4, 0, 0] + Bytes.syncsafe(100_000) + [0, 0, 0]
        if case .failure(let e) = probeBytes(b) { #expect(e.kind == .truncated) } else { Issue.record("expected an error") }
    }
}
