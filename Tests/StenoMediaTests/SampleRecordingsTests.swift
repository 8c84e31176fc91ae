import Foundation
import Testing
@testable import StenoMedia

/// The sample recordings shipped in Media/recordings (used by the demo) must all parse.
@Suite("Sample recordings")
struct SampleRecordingsTests {
    struct Expected: Sendable {
        var format: MediaFormat
        var codec: String
        var duration: Double
        var created: String?
    }

    static let expected: [String: Expected] = [
        "standup-2026-11-20.m4a": Expected(format: .mp4, codec: "aac", duration: 5.056, created: "2026-11-20T09:31:00Z"),
        "design-review.wav": Expected(format: .wav, codec: "pcm_u8", duration: 3.005, created: "2026-11-18T14:00:05Z"),
        "customer-call.mp3": Expected(format: .mp3, codec: "mp3", duration: 3.447, created: "2026-11-19T15:02:00Z"),
        "retro.ogg": Expected(format: .ogg, codec: "opus", duration: 3.510, created: "2026-11-21T16:00:00Z"),
        "one-on-one.webm": Expected(format: .webm, codec: "opus", duration: 2.964, created: "2026-11-17T11:00:00Z"),
        "voice-memo.caf": Expected(format: .caf, codec: "ima4", duration: 2.568, created: nil),
        "planning.flac": Expected(format: .flac, codec: "flac", duration: 2.646, created: "2026-11-16T10:00:00Z"),
    ]

    @Test(arguments: expected.keys.sorted())
    func sample(_ name: String) throws {
        let path = sampleRecordingsFolder() + "/" + name
        let info = try MediaProbe.probe(path: path)
        guard let want = Self.expected[name] else { return }
        #expect(info.format == want.format)
        #expect(info.codec == want.codec)
        #expect(abs(info.duration - want.duration) < 0.01)
        #expect(info.warnings.isEmpty)
        #expect(info.channels == 1)
        #expect(info.creationTime == want.created.flatMap(MediaDate.parse))
    }

    /// Bytes a tool appended to a whole MP4 or CAF (ffmpeg plays such files whole): the same
    /// reading, with a warning naming them, never "truncated".
    @Test(arguments: ["standup-2026-11-20.m4a", "voice-memo.caf"])
    func bytesAppendedToAWholeFileAreIgnoredWithAWarning(_ name: String) throws {
        let whole = try [UInt8](Data(contentsOf: URL(fileURLWithPath: sampleRecordingsFolder() + "/" + name)))
        let reading = try MediaProbe.probe(MemoryByteSource(whole))
        var generator = SystemRandomNumberGenerator()
        let tails: [[UInt8]] = [1, 3, 7, 8, 11, 12, 16, 100, 4096].flatMap { count in
            [[UInt8](repeating: 0, count: count), [UInt8](repeating: 0xFF, count: count), (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }]
        }
        for tail in tails {
            let info = try MediaProbe.probe(MemoryByteSource(whole + tail))
            #expect(abs(info.duration - reading.duration) < 0.001, "\(name) + \(tail.prefix(16)): \(info.duration) s")
            #expect(info.codec == reading.codec && info.sampleRate == reading.sampleRate)
            #expect(!info.warnings.contains { $0.contains("truncated") }, "\(name) + \(tail.count) bytes: \(info.warnings)")
        }
        // A tail that is a box or chunk header claiming more than the file holds is named.
        let header: [UInt8] = name.hasSuffix(".caf") ? Array("free".utf8) + [0, 0, 0, 0, 0, 0, 0x10, 0] : [0, 0, 0x10, 0] + Array("free".utf8)
        let named = try MediaProbe.probe(MemoryByteSource(whole + header + [1, 2, 3]))
        #expect(named.warnings.contains { $0.contains("ignored \(header.count + 3) bytes after the last whole") }, "\(named.warnings)")
    }

    @Test func fileSourceErrors() {
        #expect(throws: MediaError.self) { try MediaProbe.probe(path: "/nonexistent/x.wav") }
        // A folder is not a file: the answer is an I/O error, never a reading.
        #expect(throws: MediaError.self) { try MediaProbe.probe(path: NSTemporaryDirectory()) }
        do {
            _ = try MediaProbe.probe(path: NSTemporaryDirectory())
        } catch {
            #expect(error.kind == .io)
        }
    }

    @Test func detectionIgnoresTheExtension() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let wrong = dir.path + "/actually-flac.mp3"
        try FileManager.default.copyItem(atPath: sampleRecordingsFolder() + "/planning.flac", toPath: wrong)
        #expect(try MediaProbe.detectFormat(path: wrong) == .flac)
        #expect(try MediaProbe.probe(path: wrong).codec == "flac")
    }
}
