import Foundation
import Testing
@testable import StenoMedia

/// Hand-built buffers for the corners the generated corpus does not reach.
@Suite("Container edge cases")
struct ContainerEdgeCaseTests {
    func probe(_ b: [UInt8]) throws(MediaError) -> MediaInfo { try MediaProbe.probe(MemoryByteSource(b)) }

    func error(_ b: [UInt8]) -> MediaError? {
        if case .failure(let e) = probeBytes(b) { return e }
        return nil
    }

    // MARK: General

    @Test func emptyAndNonAudio() {
        #expect(error([])?.kind == .empty)
        #expect(error(Bytes.ascii("hello, this is a text file and not audio at all\n"))?.kind == .notAudio)
        #expect(error([UInt8](repeating: 0, count: 4096))?.kind == .notAudio)
    }

    @Test func errorMessagesNameTheProblemAndOffset() {
        let e = error(Bytes.box("ftyp", Bytes.ascii("M4A ")) + Bytes.be(5000, 4) + Bytes.ascii("moov") + [1, 2, 3])
        #expect(e?.kind == .truncated)
        #expect(e?.offset == 12)
        #expect(e?.message.contains("'moov'") == true)
        #expect(e?.message.contains("5000") == true)
    }

    // MARK: MP4

    @Test func mvhdCreationTimeZeroMeansNone() throws {
        #expect(try probe(Bytes.m4a(created: 0)).creationTime == nil)
        let info = try probe(Bytes.m4a(created: 3_846_563_400))  // seconds since 1904
        #expect(info.creationTime == Date(timeIntervalSince1970: 3_846_563_400 - 2_082_844_800))
    }

    @Test func channelsComeFromAudioSpecificConfig() throws {
        let mono = try probe(Bytes.m4a(created: 0, channels: 1))
        #expect(mono.channels == 1)  // the sample entry says 2
        #expect(mono.codec == "aac")
        #expect(mono.sampleRate == 44100)
        #expect(abs(mono.duration - 2.0) < 0.03)
        #expect(try probe(Bytes.m4a(created: 0, channels: 2)).channels == 2)
    }

    @Test func largeSizeAndSizeZeroBoxes() throws {
        let large = Bytes.largeBox("mdat", [UInt8](repeating: 7, count: 100))
        #expect(try probe(Bytes.m4a(created: 0, mdat: large)).codec == "aac")
        let toEnd = Bytes.be(0, 4) + Bytes.ascii("mdat") + [UInt8](repeating: 7, count: 100)
        #expect(try probe(Bytes.m4a(created: 0, mdat: toEnd)).codec == "aac")
    }

    @Test func absurdBoxSizeIsATypedError() {
        let huge = Bytes.be(1, 4) + Bytes.ascii("mdat") + Bytes.be(1 << 60, 8) + [1, 2, 3]
        let e = error(Bytes.m4a(created: 0, mdat: huge))
        #expect(e?.kind == .truncated)
        #expect(e?.message.contains("1152921504606846976") == true)
        let tiny = Bytes.be(3, 4) + Bytes.ascii("mdat")
        #expect(error(Bytes.m4a(created: 0, mdat: tiny))?.kind == .invalid)
    }

    @Test func mp4WithoutMoovOrSoundIsExplained() {
        #expect(error(Bytes.box("ftyp", Bytes.ascii("isom")) + Bytes.box("mdat", [0]))?.kind == .invalid)
        let videoOnly = Bytes.box("ftyp", Bytes.ascii("isom")) + Bytes.box("moov", Bytes.mvhd(created: 0, duration: 10))
        #expect(error(videoOnly)?.kind == .notAudio)
    }

    // MARK: Matroska

    func webm(segmentUnknown: Bool, info: [UInt8], cluster: [UInt8], clusterUnknown: Bool) -> [UInt8] {
        let tracks = Bytes.ebml(0x1654AE6B, Bytes.ebml(0xAE, Bytes.ebmlUInt(0xD7, 1) + Bytes.ebmlUInt(0x83, 2)
            + Bytes.ebml(0x86, Bytes.ascii("A_OPUS")) + Bytes.ebml(0xE1, Bytes.ebmlUInt(0x9F, 2))))
        return Bytes.ebml(0x1A45DFA3, Bytes.ebml(0x4282, Bytes.ascii("webm")))
            + Bytes.ebml(0x18538067, Bytes.ebml(0x1549A966, info) + tracks + Bytes.ebml(0x1F43B675, cluster, unknown: clusterUnknown), unknown: segmentUnknown)
    }

    @Test func ebmlUnknownSizesWithoutDurationUseTheLastBlock() throws {
        var cluster = Bytes.ebmlUInt(0xE7, 0)
        for k in 0..<50 { cluster += Bytes.simpleBlock(track: 1, time: Int16(k * 20)) }
        let b = webm(segmentUnknown: true, info: Bytes.ebmlUInt(0x2AD7B1, 1_000_000), cluster: cluster, clusterUnknown: true)
        let info = try probe(b)
        #expect(info.format == .webm)
        #expect(info.codec == "opus")
        #expect(info.channels == 2)
        #expect(abs(info.duration - 1.0) < 0.001)  // 50 blocks of 20 ms
        // A second unknown-size cluster continues after the first.
        var two = b
        two += Bytes.ebml(0x1F43B675, Bytes.ebmlUInt(0xE7, 1000) + Bytes.simpleBlock(track: 1, time: 0) + Bytes.simpleBlock(track: 1, time: 20), unknown: true)
        #expect(abs(try probe(two).duration - 1.04) < 0.001)
    }

    @Test func matroskaDurationBeyondWhatTheBytesHoldIsInvalid() {
        // A day claimed by a file of a few hundred bytes.
        let info = Bytes.ebmlUInt(0x2AD7B1, 1_000_000) + Bytes.ebml(0x4489, Bytes.be(Double(86_400_000).bitPattern, 8))
        let e = error(webm(segmentUnknown: false, info: info, cluster: Bytes.ebmlUInt(0xE7, 0), clusterUnknown: false))
        #expect(e?.kind == .invalid)
        #expect(e?.message.contains("can hold") == true)
    }

    @Test func matroskaDurationAndDateUTC() throws {
        let ns: Int64 = 816_168_600_000_000_000  // nanoseconds after 2001-01-01
        let info = Bytes.ebmlUInt(0x2AD7B1, 1_000_000) + Bytes.ebml(0x4489, Bytes.be(Double(7300).bitPattern, 8))
            + Bytes.ebml(0x4461, Bytes.be(UInt64(bitPattern: ns), 8))
        let parsed = try probe(webm(segmentUnknown: false, info: info, cluster: Bytes.ebmlUInt(0xE7, 0), clusterUnknown: false))
        #expect(abs(parsed.duration - 7.3) < 1e-9)
        #expect(parsed.creationTime == Date(timeIntervalSince1970: 978_307_200 + 816_168_600))
    }

    @Test func ebmlElementClaimingTooMuchIsTruncated() {
        let b = Bytes.ebml(0x1A45DFA3, Bytes.ebml(0x4282, Bytes.ascii("webm"))) + [0x18, 0x53, 0x80, 0x67, 0x01] + Bytes.be(1 << 50, 7) + [0, 0]
        #expect(error(b)?.kind == .truncated)
    }

    // MARK: WAV / RF64

    @Test func rf64DataSizeComesFromDs64() throws {
        let ds64 = Bytes.chunk("ds64", Bytes.le(0, 8) + Bytes.le(16000, 8) + Bytes.le(8000, 8) + Bytes.le(0, 4))
        let data = Bytes.ascii("data") + Bytes.le(0xFFFF_FFFF, 4) + [UInt8](repeating: 0, count: 16000)
        let b = Bytes.ascii("RF64") + Bytes.le(0xFFFF_FFFF, 4) + Bytes.ascii("WAVE") + ds64 + Bytes.fmtPCM(rate: 8000, channels: 1, bits: 16) + data
        let info = try probe(b)
        #expect(info.format == .rf64)
        #expect(info.duration == 1.0)
        #expect(info.codec == "pcm_s16le")
    }

    @Test func wavAbsurdValuesAreInvalid() {
        func wav(rate: UInt64, channels: UInt64) -> [UInt8] {
            Bytes.ascii("RIFF") + Bytes.le(100, 4) + Bytes.ascii("WAVE") + Bytes.fmtPCM(rate: rate, channels: channels, bits: 16) + Bytes.chunk("data", [0, 0, 0, 0])
        }
        #expect(error(wav(rate: 0, channels: 1))?.kind == .invalid)
        #expect(error(wav(rate: 8000, channels: 0))?.kind == .invalid)
        #expect(error(wav(rate: 4_000_000_000, channels: 1))?.kind == .invalid)
        let noData = Bytes.ascii("RIFF") + Bytes.le(100, 4) + Bytes.ascii("WAVE") + Bytes.fmtPCM(rate: 8000, channels: 1, bits: 16)
        #expect(error(noData)?.kind == .truncated)
    }

    @Test func wavWithCrashedRecorderSizeUsesWhatIsThere() throws {
        let b = Bytes.ascii("RIFF") + Bytes.le(0, 4) + Bytes.ascii("WAVE") + Bytes.fmtPCM(rate: 8000, channels: 1, bits: 8)
            + Bytes.ascii("data") + Bytes.le(0, 4) + [UInt8](repeating: 128, count: 4000)
        #expect(try probe(b).duration == 0.5)
    }

    // MARK: FLAC / CAF / Ogg

    @Test func flacWithoutTotalSamplesIsUnsupported() {
        var si = [UInt8](repeating: 0, count: 34)
        // 44100 Hz, 2 channels, 16 bits, total samples 0.
        let packed: UInt64 = 44100 << 44 | 1 << 41 | 15 << 36
        si.replaceSubrange(10..<18, with: Bytes.be(packed, 8))
        // Bytes that hold no complete frame: neither the header nor the frames know the length.
        let audio = [UInt8](repeating: 0, count: 1000)
        #expect(error(Bytes.ascii("fLaC") + [0x80, 0, 0, 34] + si + audio)?.kind == .unsupported)
        si.replaceSubrange(10..<18, with: Bytes.be(packed | 88200, 8))
        #expect((try? probe(Bytes.ascii("fLaC") + [0x80, 0, 0, 34] + si + audio))?.duration == 2.0)
    }

    @Test func cafDataToEndOfFile() throws {
        let desc = Bytes.be(Double(8000).bitPattern, 8) + Bytes.ascii("lpcm") + Bytes.be(2, 4) + Bytes.be(2, 4) + Bytes.be(1, 4) + Bytes.be(1, 4) + Bytes.be(16, 4)
        let b = Bytes.ascii("caff") + [0, 1, 0, 0] + Bytes.ascii("desc") + Bytes.be(32, 8) + desc
            + Bytes.ascii("data") + Bytes.be(UInt64.max, 8) + [0, 0, 0, 0] + [UInt8](repeating: 0, count: 8000)
        let info = try probe(b)
        #expect(info.duration == 0.5)
        #expect(info.codec == "pcm_s16le")
        var bad = b
        bad.replaceSubrange(20..<28, with: Bytes.be(0, 8))  // sample rate 0
        #expect(error(bad)?.kind == .invalid)
    }

    @Test func oggOpusPreSkipIsSubtracted() throws {
        func page(_ packet: [UInt8], granule: UInt64, seq: UInt64, flags: UInt8) -> [UInt8] {
            Bytes.ascii("OggS") + [0, flags] + Bytes.le(granule, 8) + Bytes.le(7, 4) + Bytes.le(seq, 4) + [0, 0, 0, 0] + [1, UInt8(packet.count)] + packet
        }
        let head = Bytes.ascii("OpusHead") + [1, 2] + Bytes.le(312, 2) + Bytes.le(48000, 4) + [0, 0, 0]
        let tags = Bytes.ascii("OpusTags") + Bytes.le(3, 4) + Bytes.ascii("abc") + Bytes.le(1, 4) + Bytes.le(15, 4) + Bytes.ascii("DATE=2026-11-20")
        let b = page(head, granule: 0, seq: 0, flags: 2) + page(tags, granule: 0, seq: 1, flags: 0) + page([0xFC, 0, 0], granule: 48312, seq: 2, flags: 4)
        let info = try probe(b)
        #expect(info.duration == 1.0)
        #expect(info.channels == 2)
        #expect(info.tags["date"] == "2026-11-20")
        #expect(info.creationTime == nil)  // a date without a time of day is not an instant
    }

    @Test func dateParsing() {
        let base = Date(timeIntervalSince1970: 1_795_167_000)  // 2026-11-20T09:30:00Z
        #expect(MediaDate.parse("2026-11-20T09:30:00Z") == base)
        #expect(MediaDate.parse("2026-11-20T10:30:00+01:00") == base)
        #expect(MediaDate.parse("2026-11-20 04:30:00 -0500") == base)
        #expect(MediaDate.parse("2026-11-20T09:30") == base)
        #expect(MediaDate.parse("2026-11-20T09:30:00.250Z") == base.addingTimeInterval(0.25))
        #expect(MediaDate.parse("2026") == nil)
        #expect(MediaDate.parse("2026-11-20") == nil)
        #expect(MediaDate.parse("not a date") == nil)
        #expect(MediaDate.parse("2026-13-01") == nil)
    }
}
