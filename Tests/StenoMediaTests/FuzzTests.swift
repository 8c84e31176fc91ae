import Foundation
import StenoTesting
import Testing
@testable import StenoMedia

/// Truncated, random and mutated input must produce a MediaInfo or a MediaError —
/// never a crash, a hang or another error type — and do so quickly.
@Suite("Fuzz-style robustness")
struct FuzzTests {
    /// Upper bound for one probe of a small buffer (debug build, loaded machine).
    static let perProbeLimit = Duration.seconds(1)

    static func samples() -> [(String, [UInt8])] {
        let dir = sampleRecordingsFolder()
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        return names.sorted().filter { !$0.hasSuffix(".json") && !$0.hasPrefix(".") }.map { ($0, readFile("\(dir)/\($0)")) }
            + handBuiltSamples()
    }

    /// Small valid files of every container built in code, so the fuzzing covers all
    /// parsers even without the sample folder.
    static func handBuiltSamples() -> [(String, [UInt8])] {
        var mp3 = Bytes.id3(major: 4, frames: [("TDRC", [3] + Bytes.ascii("2026-11-20T09:30"))])
        mp3 += Bytes.xingFrame(frames: 3, delay: 576, padding: 100)
        for _ in 0..<3 { mp3 += Bytes.mp3Frame() }
        let wav = Bytes.ascii("RIFF") + Bytes.le(36 + 8, 4) + Bytes.ascii("WAVE") + Bytes.fmtPCM(rate: 8000, channels: 1, bits: 16) + Bytes.chunk("data", [UInt8](repeating: 0, count: 8))
        let mkv = Bytes.ebml(0x1A45DFA3, Bytes.ebml(0x4282, Bytes.ascii("webm")))
            + Bytes.ebml(0x18538067, Bytes.ebml(0x1549A966, Bytes.ebmlUInt(0x2AD7B1, 1_000_000))
                + Bytes.ebml(0x1654AE6B, Bytes.ebml(0xAE, Bytes.ebmlUInt(0xD7, 1) + Bytes.ebmlUInt(0x83, 2) + Bytes.ebml(0x86, Bytes.ascii("A_OPUS"))))
                + Bytes.ebml(0x1F43B675, Bytes.ebmlUInt(0xE7, 0) + Bytes.simpleBlock(track: 1, time: 0) + Bytes.simpleBlock(track: 1, time: 20), unknown: true), unknown: true)
        return [
            ("built.m4a", Bytes.m4a(created: 3_846_000_000)), ("built.mp3", mp3), ("built.wav", wav), ("built.webm", mkv),
            ("built.flac", Bytes.flac(total: 40 * 4096, frames: 40)), ("built.caf", Bytes.caf(audioBytes: 1600)),
            ("built-tables.m4a", Bytes.m4aWithSampleTable(frames: 20, frameBytes: 40, perChunk: 6)),
            ("built-duration.webm", Bytes.webm(durationMilliseconds: 400, blocks: 20)), ("built.opus", Bytes.oggOpus(audioPages: 4, endOfStream: true)),
        ]
    }

    static func timedProbe(_ bytes: [UInt8], _ label: @autoclosure () -> String) {
        let clock = ContinuousClock()
        let start = clock.now
        _ = probeBytes(bytes)
        let elapsed = clock.now - start
        #expect(elapsed < perProbeLimit, "\(label()) took \(elapsed)")
    }

    @Test("Every truncation point of every sample", .timeLimit(.minutes(3)))
    func truncations() {
        let samples = Self.samples()
        #expect(samples.count >= 4)
        for (name, bytes) in samples {
            let full = probeBytes(bytes)
            if case .failure(let e) = full { Issue.record("\(name) does not parse whole: \(e)") }
            // Every cut in the first 16 KiB (headers live there), then a stride to the end.
            var cut = 0
            while cut < bytes.count {
                Self.timedProbe(Array(bytes[0..<cut]), "\(name) cut at \(cut)")
                cut += cut < 16_384 ? 1 : 97
            }
        }
    }

    @Test("Thousands of seeded random buffers, bare and behind every signature", .timeLimit(.minutes(2)))
    func randomBuffers() {
        var rng = SeededRandom(seed: 0x5713_0D1A)
        let prefixes: [[UInt8]] = [
            [], Bytes.ascii("RIFF\u{0}\u{0}\u{0}\u{0}WAVE"), Bytes.ascii("RF64\u{FF}\u{FF}\u{FF}\u{FF}WAVE"), Bytes.ascii("fLaC"),
            Bytes.ascii("ID3\u{4}\u{0}\u{0}\u{0}\u{0}\u{0}\u{10}"), [0xFF, 0xFB, 0x90, 0x00], Bytes.ascii("\u{0}\u{0}\u{0}\u{18}ftypM4A "),
            Bytes.ascii("OggS\u{0}\u{2}"), [0x1A, 0x45, 0xDF, 0xA3], Bytes.ascii("caff\u{0}\u{1}\u{0}\u{0}"),
        ]
        for i in 0..<4000 {
            let length = Int.random(in: 0...1500, using: &rng)
            var buffer = prefixes[i % prefixes.count]
            buffer += (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            Self.timedProbe(buffer, "random buffer #\(i)")
        }
    }

    @Test("Random mutations of valid headers", .timeLimit(.minutes(2)))
    func mutations() {
        var rng = SeededRandom(seed: 42)
        let samples = Self.samples().map { ($0.0, Array($0.1.prefix(8192))) }
        for (name, original) in samples where !original.isEmpty {
            for round in 0..<600 {
                var b = original
                let edits = Int.random(in: 1...8, using: &rng)
                for _ in 0..<edits {
                    // Bias towards the header, where the interesting fields are.
                    let at = Int.random(in: 0..<min(b.count, round % 2 == 0 ? 128 : b.count), using: &rng)
                    switch Int.random(in: 0..<4, using: &rng) {
                    case 0: b[at] = UInt8.random(in: 0...255, using: &rng)
                    case 1: b[at] = [0x00, 0xFF, 0x7F, 0x80, 0x01][Int.random(in: 0..<5, using: &rng)]
                    case 2:
                        // Huge or extreme values in a whole size/count field.
                        let fill: UInt8 = [0xFF, 0x7F, 0x00, 0x80][Int.random(in: 0..<4, using: &rng)]
                        for k in at..<min(b.count, at + 8) { b[k] = k == at && fill == 0x7F ? 0x7F : (fill == 0x7F ? 0xFF : fill) }
                    default: b[at] ^= 1 << UInt8.random(in: 0..<8, using: &rng)
                    }
                }
                Self.timedProbe(b, "\(name) mutation \(round)")
            }
        }
    }
}
