import Foundation
import Testing
@testable import StenoMedia

/// Lengths a header claims are checked against the bytes that follow it: a recording is
/// never longer than its bytes can hold, a header without audio is no recording, and a
/// file cut short keeps the length it holds with a warning saying so.
@Suite("Lengths checked against the bytes")
struct LengthPlausibilityTests {
    func probe(_ b: [UInt8]) throws(MediaError) -> MediaInfo { try MediaProbe.probe(MemoryByteSource(b)) }

    func error(_ b: [UInt8]) -> MediaError? {
        if case .failure(let e) = probeBytes(b) { return e }
        return nil
    }

    /// 2^36 − 1 samples: the largest count STREAMINFO can hold (16.6 days at 48 kHz).
    static let largestFLACCount: UInt64 = (1 << 36) - 1

    // MARK: FLAC

    @Test func flacClaimingMoreThanItsBytesHoldTakesTheFramesLength() throws {
        let info = try probe(Bytes.flac(total: Self.largestFLACCount, frames: 200))
        #expect(abs(info.duration - Double(200 * 4096) / 48000) < 0.001)
        #expect(info.warnings.count == 1)
        #expect(info.warnings.first?.hasPrefix("implausible length: STREAMINFO says 1431655.8 s") == true)
    }

    @Test func flacClaimingMoreThanItsBytesHoldWithoutFramesFailsWithTheReason() {
        // Six megabytes in which no frame can be found, claiming 16 days.
        let e = error(Bytes.flac(total: Self.largestFLACCount, frames: 0, tail: [UInt8](repeating: 0, count: 6 << 20)))
        #expect(e?.kind == .invalid)
        #expect(e?.message.contains("can hold at most") == true)
        #expect(e?.message.contains("6291456 bytes") == true)
    }

    @Test func flacWithoutFramesHasNoAudio() {
        let e = error(Bytes.flac(total: 10 * 4096, frames: 0))
        #expect(e?.kind == .noAudio)
        #expect(e?.message.hasPrefix("no audio") == true)
    }

    @Test func flacCutShortKeepsWhatItHoldsWithAWarning() throws {
        // Header: 250 blocks (21.3 s); data: 200 whole frames and part of the next (17.1 s).
        let info = try probe(Bytes.flac(total: 250 * 4096, frames: 200, tail: Array(Bytes.flacFrame(number: 200).prefix(6))))
        #expect(abs(info.duration - Double(200 * 4096) / 48000) < 0.001)
        #expect(info.warnings == ["truncated: header says 21.3 s, data holds 17.1 s"])
    }

    @Test func flacWithoutTotalCountTakesTheFramesLength() throws {
        let info = try probe(Bytes.flac(total: 0, frames: 30))
        #expect(abs(info.duration - Double(30 * 4096) / 48000) < 0.001)
        #expect(info.warnings.isEmpty)
    }

    @Test func flacWholeAndAgreeingHasNoWarning() throws {
        let info = try probe(Bytes.flac(total: 40 * 4096 - 100, frames: 40))
        #expect(abs(info.duration - Double(40 * 4096 - 100) / 48000) < 0.001)
        #expect(info.warnings.isEmpty)
    }

    // MARK: WAV

    func wav(dataClaims: UInt64, holds: Int, rate: UInt64 = 8000) -> [UInt8] {
        Bytes.ascii("RIFF") + Bytes.le(36 + dataClaims, 4) + Bytes.ascii("WAVE") + Bytes.fmtPCM(rate: rate, channels: 1, bits: 16)
            + Bytes.ascii("data") + Bytes.le(dataClaims, 4) + [UInt8](repeating: 0, count: holds)
    }

    @Test func wavWithAnEmptyDataChunkHasNoAudio() {
        let e = error(wav(dataClaims: 0, holds: 0))
        #expect(e?.kind == .noAudio)
        #expect(e?.message == "no audio in WAV: the 'data' chunk is empty")
        // Less than one sample frame is no audio either.
        #expect(error(wav(dataClaims: 1, holds: 1))?.kind == .noAudio)
    }

    @Test func wavCutShortKeepsWhatItHoldsWithAWarning() throws {
        // 8 kHz mono 16-bit: the header claims 11.2 s, the file holds 6.7 s.
        let info = try probe(wav(dataClaims: 179_200, holds: 107_200))
        #expect(info.duration == 6.7)
        #expect(info.warnings == ["truncated: header says 11.2 s, data holds 6.7 s"])
        #expect(try probe(wav(dataClaims: 107_200, holds: 107_200)).warnings.isEmpty)
    }

    @Test func wavFactCountBeyondTheBytesIsNotBelieved() throws {
        // IMA ADPCM, 4055 bytes a second, 1000 bytes of data, a 'fact' claiming an hour.
        let fmt = Bytes.chunk("fmt ", Bytes.le(0x11, 2) + Bytes.le(1, 2) + Bytes.le(8000, 4) + Bytes.le(4055, 4) + Bytes.le(256, 2) + Bytes.le(4, 2))
        let b = Bytes.ascii("RIFF") + Bytes.le(2000, 4) + Bytes.ascii("WAVE") + fmt + Bytes.chunk("fact", Bytes.le(8000 * 3600, 4))
            + Bytes.chunk("data", [UInt8](repeating: 0, count: 1000))
        let info = try probe(b)
        #expect(abs(info.duration - 1000.0 / 4055) < 0.001)
        #expect(info.warnings.first?.hasPrefix("implausible length: 'fact' says 3600.0 s") == true)
    }

    // MARK: CAF

    @Test func cafWithAnEmptyDataChunkHasNoAudio() {
        #expect(error(Bytes.caf(audioBytes: 0))?.kind == .noAudio)
        #expect((try? probe(Bytes.caf(audioBytes: 1600)))?.duration == 0.1)
    }

    @Test func cafCutShortKeepsWhatItHoldsWithAWarning() throws {
        // 8 kHz mono 16-bit: the 'data' chunk claims 11.2 s, the file holds 6.7 s.
        var b = Bytes.caf(audioBytes: 107_200)
        let sizeAt = b.count - 107_200 - 4 - 8
        b.replaceSubrange(sizeAt..<(sizeAt + 8), with: Bytes.be(179_200 + 4, 8))
        let info = try probe(b)
        #expect(info.duration == 6.7)
        #expect(info.warnings == ["truncated: header says 11.2 s, data holds 6.7 s"])
    }

    @Test func cafPacketTableClaimingMoreThanTheBytesHoldIsInvalid() {
        let e = error(Bytes.caf(audioBytes: 1600, validFrames: 8000 * 3600))
        #expect(e?.kind == .invalid)
        #expect(e?.message.contains("can hold at most") == true)
    }
}

extension LengthPlausibilityTests {
    // MARK: MP3, Ogg and MP4

    @Test func mp4ClaimingMoreThanItsMediaDataHoldsIsInvalid() throws {
        // An hour of AAC in 64 bytes of media data: no bitrate is that low.
        let e = error(Bytes.m4a(created: 0, seconds: 3600))
        #expect(e?.kind == .invalid)
        #expect(e?.message.contains("more than 64 bytes of aac can hold") == true)
        #expect(try probe(Bytes.m4a(created: 0, seconds: 2)).duration > 1.9)
    }

    @Test func mp3CutShortKeepsWhatItHoldsWithAWarning() throws {
        // A Xing header for 1000 frames (26.1 s), more than the bytes hold even at the lowest
        // bitrate; the file holds 101 (2.6 s).
        var b = Bytes.xingFrame(frames: 1000, delay: 0, padding: 0)
        for _ in 0..<100 { b += Bytes.mp3Frame() }
        let info = try probe(b)
        #expect(abs(info.duration - 101 * 1152 / 44100.0) < 0.001)
        #expect(info.warnings == ["truncated: header says 26.1 s, data holds 2.6 s"])
        var whole = Bytes.xingFrame(frames: 100, delay: 0, padding: 0)
        for _ in 0..<100 { whole += Bytes.mp3Frame() }
        #expect(try probe(whole).warnings.isEmpty)
    }

    @Test func oggWithoutSamplesHasNoAudio() {
        func page(_ packet: [UInt8], granule: UInt64, seq: UInt64, flags: UInt8) -> [UInt8] {
            Bytes.ascii("OggS") + [0, flags] + Bytes.le(granule, 8) + Bytes.le(7, 4) + Bytes.le(seq, 4) + [0, 0, 0, 0] + [1, UInt8(packet.count)] + packet
        }
        let head = Bytes.ascii("OpusHead") + [1, 1] + Bytes.le(312, 2) + Bytes.le(48000, 4) + [0, 0, 0]
        let tags = Bytes.ascii("OpusTags") + Bytes.le(0, 4) + Bytes.le(0, 4)
        // The last page's granule does not reach past the pre-skip: nothing to play.
        let b = page(head, granule: 0, seq: 0, flags: 2) + page(tags, granule: 0, seq: 1, flags: 0) + page([0xFC], granule: 312, seq: 2, flags: 4)
        #expect(error(b)?.kind == .noAudio)
    }
}
