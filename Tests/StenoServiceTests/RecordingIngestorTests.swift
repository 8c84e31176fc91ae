import Foundation
import StenoCatalog
import StenoCore
import StenoSQLite
import Testing

@testable import StenoService

/// The ingestor on a temporary inbox holding copies of the `Media/` samples.
@Suite("Recording ingestor")
struct RecordingIngestorTests {
    let root = NSTemporaryDirectory() + "steno-ingest-" + UUID().uuidString
    var inbox: String { root + "/inbox" }
    static let media = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Media/recordings").path

    func setUp() async throws -> (RecordingIngestor, SQLiteCatalog) {
        try FileManager.default.createDirectory(atPath: inbox + "/alice", withIntermediateDirectories: true)
        let catalog = try await SQLiteCatalog.open(path: root + "/catalog.sqlite")
        _ = try await catalog.addUser(UserDraft(name: "alice", emails: ["alice@example.com"]))
        _ = try await catalog.addUser(UserDraft(name: "bob", emails: ["bob@example.com"]))
        return (RecordingIngestor(inbox: Inbox(inbox), store: catalog, timeZone: TimeZone(identifier: "UTC") ?? .current), catalog)
    }

    func copySample(_ name: String, to relative: String) throws {
        try FileManager.default.copyItem(atPath: Self.media + "/" + name, toPath: inbox + "/" + relative)
    }

    func recorded(_ outcome: RecordingIngestor.Outcome) throws -> Recording {
        guard case .recorded(let recording) = outcome else { throw TestFailure("expected a recording, got \(outcome)") }
        return recording
    }

    @Test func everySampleBecomesAReadyRecordingOwnedByItsFolder() async throws {
        let (ingestor, _) = try await setUp()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let samples = try FileManager.default.contentsOfDirectory(atPath: Self.media).filter { !$0.hasPrefix(".") && !$0.hasSuffix(".json") }
        #expect(samples.count >= 7)
        for sample in samples {
            try copySample(sample, to: "alice/" + sample)
            let recording = try recorded(try await ingestor.ingest(relativePath: "alice/" + sample))
            #expect(recording.status == .ready, "\(sample): \(recording.failureReason ?? "")")
            #expect(recording.ownerName == "alice")
            #expect((recording.duration ?? 0) > 1, "\(sample)")
            #expect(recording.contentHash?.count == 64)
            #expect(recording.recordedAt != nil)
        }
    }

    @Test func sidecarPairsTitleHintsTranscriptAndOwner() async throws {
        let (ingestor, catalog) = try await setUp()
        defer { try? FileManager.default.removeItem(atPath: root) }
        // From an admin's folder (a member's sidecar may not name another owner).
        _ = try await catalog.addUser(UserDraft(name: "carol", emails: ["carol@example.com"], role: .admin))
        try FileManager.default.createDirectory(atPath: inbox + "/carol", withIntermediateDirectories: true)
        try copySample("design-review.wav", to: "carol/review.wav")
        let sidecar = #"{"recordedAt":"2026-11-20T09:30:00+01:00","title":"Design review","owner":"bob@example.com","iCalUId":"uid-123","transcript":"Hello all","customKey":{"x":1}}"#
        try sidecar.write(toFile: inbox + "/carol/review.json", atomically: true, encoding: .utf8)
        #expect(try await ingestor.ingest(relativePath: "carol/review.json") == .belongsTo(["carol/review.wav"]))
        let recording = try recorded(try await ingestor.ingest(relativePath: "carol/review.wav"))
        #expect(recording.title == "Design review")
        #expect(recording.iCalUIDHint == "uid-123")
        #expect(recording.transcript == "Hello all")
        #expect(recording.ownerName == "bob", "the sidecar's owner overrides an admin's folder")
        #expect(recording.recordedAtSource == .sidecar)
        #expect(recording.recordedAt == ISO8601DateFormatter().date(from: "2026-11-20T08:30:00Z"))
    }

    @Test func transcriptFileIsPaired() async throws {
        let (ingestor, _) = try await setUp()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try copySample("retro.ogg", to: "alice/retro.ogg")
        try "WEBVTT\n\n00:00.000 --> 00:02.000\nWhat went well?\n".write(toFile: inbox + "/alice/retro.vtt", atomically: true, encoding: .utf8)
        let recording = try recorded(try await ingestor.ingest(relativePath: "alice/retro.ogg"))
        #expect(recording.transcript?.contains("What went well?") == true)
    }

    @Test func aTranscriptTooLargeToReadIsSaidOnTheRecording() async throws {
        let (ingestor, _) = try await setUp()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try copySample("retro.ogg", to: "alice/retro.ogg")
        // A sparse 300 MB file: its size is what matters, not its bytes.
        let path = inbox + "/alice/retro.txt"
        _ = FileManager.default.createFile(atPath: path, contents: Data("Hello".utf8))
        #expect(truncate(path, 300 << 20) == 0)
        let recording = try recorded(try await ingestor.ingest(relativePath: "alice/retro.ogg"))
        #expect(recording.status == .ready && recording.transcript == nil)
        #expect(recording.warnings.contains { $0.contains("transcript retro.txt was not read") && $0.contains("limit") }, "\(recording.warnings)")
    }

    @Test func badInputFailsWithAReasonAndNothingElseIsAffected() async throws {
        let (ingestor, catalog) = try await setUp()
        defer { try? FileManager.default.removeItem(atPath: root) }
        _ = FileManager.default.createFile(atPath: inbox + "/alice/empty.wav", contents: Data())
        try "just some notes, not audio".write(toFile: inbox + "/alice/notes.mp3", atomically: true, encoding: .utf8)
        let sample = try Data(contentsOf: URL(fileURLWithPath: Self.media + "/standup-2026-11-20.m4a"))
        try sample.prefix(sample.count / 3).write(to: URL(fileURLWithPath: inbox + "/alice/truncated.m4a"))
        try "outside".write(toFile: root + "/secret.wav", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: inbox + "/alice/link.wav", withDestinationPath: root + "/secret.wav")
        try copySample("planning.flac", to: "alice/good.flac")

        for name in ["empty.wav", "notes.mp3", "truncated.m4a", "link.wav"] {
            let recording = try recorded(try await ingestor.ingest(relativePath: "alice/" + name))
            #expect(recording.status == .failed, "\(name)")
            #expect(recording.failureReason?.isEmpty == false, "\(name)")
        }
        let link = try await catalog.recordings(RecordingQuery(status: .failed)).first { $0.paths.first?.path == "alice/link.wav" }
        #expect(link?.failureReason?.contains("outside the inbox") == true)
        #expect(try recorded(try await ingestor.ingest(relativePath: "alice/good.flac")).status == .ready)
    }

    @Test func duplicatesMovesAndDeletes() async throws {
        let (ingestor, _) = try await setUp()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try copySample("customer-call.mp3", to: "alice/call.mp3")
        try copySample("customer-call.mp3", to: "alice/call-copy.mp3")
        let first = try recorded(try await ingestor.ingest(relativePath: "alice/call.mp3"))
        let second = try recorded(try await ingestor.ingest(relativePath: "alice/call-copy.mp3"))
        #expect(first.id == second.id)
        #expect(second.paths.count == 2)

        try FileManager.default.removeItem(atPath: inbox + "/alice/call.mp3")
        try FileManager.default.removeItem(atPath: inbox + "/alice/call-copy.mp3")
        guard case .gone(let afterFirst) = try await ingestor.ingest(relativePath: "alice/call.mp3") else { throw TestFailure("not gone") }
        #expect(afterFirst?.status == .ready)
        guard case .gone(let afterBoth) = try await ingestor.ingest(relativePath: "alice/call-copy.mp3") else { throw TestFailure("not gone") }
        #expect(afterBoth?.status == .missing)

        try copySample("customer-call.mp3", to: "alice/renamed.mp3")
        let back = try recorded(try await ingestor.ingest(relativePath: "alice/renamed.mp3"))
        #expect(back.id == first.id)
        #expect(back.status == .ready)
        #expect(back.paths == [RecordingPath(path: "alice/renamed.mp3", isPresent: true)])
    }

    @Test func pathsOutsideTheInboxAndLitterAreRefused() async throws {
        let (ingestor, _) = try await setUp()
        defer { try? FileManager.default.removeItem(atPath: root) }
        // Refused for good: the job fails permanently.
        for path in ["../etc/passwd", "/etc/passwd"] {
            await #expect(throws: JobError.permanent("\"\(path)\" is not a path inside the inbox")) {
                _ = try await ingestor.ingest(relativePath: path)
            }
        }
        guard case .ignored = try await ingestor.ingest(relativePath: "alice/.DS_Store") else { throw TestFailure("not ignored") }
        guard case .ignored = try await ingestor.ingest(relativePath: "alice/x.m4a.part") else { throw TestFailure("not ignored") }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
