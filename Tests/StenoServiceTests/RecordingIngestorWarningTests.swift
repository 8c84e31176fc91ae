import Foundation
import StenoCatalog
import StenoCore
import StenoMedia
import Testing

@testable import StenoService

/// Readings that catalogue a recording with a warning, or fail it, rather than trusting a header.
extension RecordingIngestorTests {
    /// An 8 kHz mono 16-bit WAV whose 'data' chunk claims `claimed` bytes and holds `held`.
    func writeWAV(_ relative: String, claimed: UInt32, held: Int) throws {
        func le(_ v: UInt32, _ n: Int) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: v >> (8 * UInt32($0))) } }
        let fmt = Array("fmt ".utf8) + le(16, 4) + le(1, 2) + le(1, 2) + le(8000, 4) + le(16000, 4) + le(2, 2) + le(16, 2)
        let bytes = Array("RIFF".utf8) + le(36 + claimed, 4) + Array("WAVE".utf8) + fmt + Array("data".utf8) + le(claimed, 4)
            + [UInt8](repeating: 0, count: held)
        try Data(bytes).write(to: URL(fileURLWithPath: inbox + "/" + relative))
    }

    @Test func fileCutShortIsReadyAtWhatItHoldsWithAListedWarning() async throws {
        let (ingestor, catalog) = try await setUp()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try writeWAV("alice/cut.wav", claimed: 179_200, held: 107_200)
        try copySample("design-review.wav", to: "alice/whole.wav")
        let cut = try recorded(try await ingestor.ingest(relativePath: "alice/cut.wav"))
        let whole = try recorded(try await ingestor.ingest(relativePath: "alice/whole.wav"))
        #expect(cut.status == .ready)
        #expect(cut.duration == 6.7)
        #expect(cut.warnings == ["truncated: header says 11.2 s, data holds 6.7 s"])
        #expect(whole.warnings.isEmpty)
        #expect(try await catalog.recordings(RecordingQuery(withWarnings: true)).map(\.id) == [cut.id])
        #expect(try await catalog.recording(id: cut.id, visibleTo: nil).warnings == cut.warnings)
    }

    @Test func headerWithoutSamplesFailsWithNoAudio() async throws {
        let (ingestor, _) = try await setUp()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try writeWAV("alice/silent.wav", claimed: 0, held: 0)
        let recording = try recorded(try await ingestor.ingest(relativePath: "alice/silent.wav"))
        #expect(recording.status == .failed)
        #expect(recording.failureReason == "no audio in WAV: the 'data' chunk is empty")
    }

    @Test func sidecarLengthDisagreeingByMoreThanASecondIsAWarning() async throws {
        let (ingestor, _) = try await setUp()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try writeWAV("alice/call.wav", claimed: 160_000, held: 160_000)  // 10 s
        try #"{"durationSeconds": 600}"#.write(toFile: inbox + "/alice/call.json", atomically: true, encoding: .utf8)
        try writeWAV("alice/close.wav", claimed: 160_000, held: 160_000)
        try #"{"durationSeconds": 10.6}"#.write(toFile: inbox + "/alice/close.json", atomically: true, encoding: .utf8)
        let call = try recorded(try await ingestor.ingest(relativePath: "alice/call.wav"))
        #expect(call.duration == 10)
        #expect(call.warnings == ["sidecar says 600.0 s, the file holds 10.0 s"])
        #expect(try recorded(try await ingestor.ingest(relativePath: "alice/close.wav")).warnings.isEmpty)
    }

    @Test func sidecarLengthIsUsedWhereTheContainerHasNone() async throws {
        let (ingestor, _) = try await setUp()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let sidecar = try Sidecar.parse(Data(#"{"durationSeconds": 42.5}"#.utf8))
        let companions = RecordingIngestor.Companions(sidecar: sidecar, sidecarJSON: nil, transcript: nil)
        let withoutLength = MediaInfo(format: .mp4, codec: "aac", duration: 0)
        let metadata = ingestor.metadata(media: withoutLength, companions: companions, fileName: "alice/a.m4a", modified: Date())
        #expect(metadata.duration == 42.5)
        var withLength = withoutLength
        withLength.duration = 42
        #expect(ingestor.metadata(media: withLength, companions: companions, fileName: "alice/a.m4a", modified: Date()).duration == 42)
    }
}
