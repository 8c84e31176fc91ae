#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StenoCatalog
import StenoCore
import StenoSQLite
import Testing

@testable import StenoService

/// Who may give a recording to whom: symlinks between inbox folders and sidecar owners.
@Suite("Ingest ownership")
struct IngestOwnershipTests {
    let root = NSTemporaryDirectory() + "steno-owners-" + UUID().uuidString
    var inbox: String { root + "/inbox" }
    /// A uid that is no registered user's and no file's owner here.
    static let bobUID: UInt32 = 65534

    func setUp(log: CapturedLog = CapturedLog()) async throws -> (RecordingIngestor, SQLiteCatalog) {
        for folder in ["alice", "bob", "boss", "shared"] {
            try FileManager.default.createDirectory(atPath: inbox + "/" + folder, withIntermediateDirectories: true)
        }
        let catalog = try await SQLiteCatalog.open(path: root + "/catalog.sqlite")
        _ = try await catalog.addUser(UserDraft(name: "alice", emails: ["alice@example.com"]))
        _ = try await catalog.addUser(UserDraft(name: "bob", emails: ["bob@example.com"], uids: [Self.bobUID]))
        _ = try await catalog.addUser(UserDraft(name: "boss", emails: ["boss@example.com"], role: .admin))
        let ingestor = RecordingIngestor(inbox: Inbox(inbox), store: catalog, timeZone: TimeZone(identifier: "UTC") ?? .current, logger: log.logger)
        return (ingestor, catalog)
    }

    func copySample(_ name: String, to relative: String) throws {
        try FileManager.default.copyItem(atPath: RecordingIngestorTests.media + "/" + name, toPath: inbox + "/" + relative)
    }

    func recorded(_ outcome: RecordingIngestor.Outcome) throws -> Recording {
        guard case .recorded(let recording) = outcome else { throw TestFailure("expected a recording, got \(outcome)") }
        return recording
    }

    @Test func aLinkIntoAnotherUsersFolderIsRefusedAndChangesNothingOfTheirs() async throws {
        let (ingestor, catalog) = try await setUp()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try copySample("retro.ogg", to: "alice/retro.ogg")
        try #"{"title":"Alice's retro"}"#.write(toFile: inbox + "/alice/retro.json", atomically: true, encoding: .utf8)
        let alices = try recorded(try await ingestor.ingest(relativePath: "alice/retro.ogg"))
        try FileManager.default.createSymbolicLink(atPath: inbox + "/bob/x.ogg", withDestinationPath: inbox + "/alice/retro.ogg")
        try #"{"title":"Bob was here"}"#.write(toFile: inbox + "/bob/x.json", atomically: true, encoding: .utf8)

        let bobs = try recorded(try await ingestor.ingest(relativePath: "bob/x.ogg"))
        #expect(bobs.id != alices.id, "bob is not told alice's recording")
        #expect(bobs.status == .failed)
        #expect(bobs.ownerName == "bob")
        #expect(bobs.failureReason?.contains("another user's inbox folder") == true, "\(bobs.failureReason ?? "")")
        let after = try await catalog.recording(id: alices.id, visibleTo: nil)
        #expect(after.title == "Alice's retro")
        #expect(after.paths == [RecordingPath(path: "alice/retro.ogg", isPresent: true)])
    }

    @Test func aLinkIsFollowedOnlyToAFileTheFolderOwnerCanRead() async throws {
        let (ingestor, _) = try await setUp()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try copySample("retro.ogg", to: "shared/private.ogg")
        try copySample("planning.flac", to: "shared/open.flac")
        chmod(inbox + "/shared/private.ogg", 0o600)
        chmod(inbox + "/shared/open.flac", 0o644)
        try FileManager.default.createSymbolicLink(atPath: inbox + "/bob/private.ogg", withDestinationPath: inbox + "/shared/private.ogg")
        try FileManager.default.createSymbolicLink(atPath: inbox + "/bob/open.flac", withDestinationPath: "../shared/open.flac")

        let refused = try recorded(try await ingestor.ingest(relativePath: "bob/private.ogg"))
        #expect(refused.status == .failed)
        #expect(refused.failureReason?.contains("cannot read") == true, "\(refused.failureReason ?? "")")
        let followed = try recorded(try await ingestor.ingest(relativePath: "bob/open.flac"))
        #expect(followed.status == .ready, "\(followed.failureReason ?? "")")
        #expect(followed.ownerName == "bob")
    }

    @Test func aSidecarOrTranscriptLinkedFromAnotherUsersFolderIsNotRead() async throws {
        let (ingestor, _) = try await setUp()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try #"{"title":"Alice's secret meeting"}"#.write(toFile: inbox + "/alice/secret.json", atomically: true, encoding: .utf8)
        try "alice's private words".write(toFile: inbox + "/alice/secret.txt", atomically: true, encoding: .utf8)
        try copySample("retro.ogg", to: "bob/retro.ogg")
        try FileManager.default.createSymbolicLink(atPath: inbox + "/bob/retro.json", withDestinationPath: inbox + "/alice/secret.json")
        try FileManager.default.createSymbolicLink(atPath: inbox + "/bob/retro.txt", withDestinationPath: inbox + "/alice/secret.txt")

        let recording = try recorded(try await ingestor.ingest(relativePath: "bob/retro.ogg"))
        #expect(recording.status == .ready)
        #expect(recording.title == nil)
        #expect(recording.transcript == nil)
    }

    @Test func anotherUsersCopyOfTheSameContentDoesNotRetitleTheRecording() async throws {
        let (ingestor, catalog) = try await setUp()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try copySample("retro.ogg", to: "alice/retro.ogg")
        try #"{"title":"Alice's retro"}"#.write(toFile: inbox + "/alice/retro.json", atomically: true, encoding: .utf8)
        let alices = try recorded(try await ingestor.ingest(relativePath: "alice/retro.ogg"))
        try copySample("retro.ogg", to: "bob/copy.ogg")
        try #"{"title":"Bob was here","transcript":"forged"}"#.write(toFile: inbox + "/bob/copy.json", atomically: true, encoding: .utf8)

        _ = try await ingestor.ingest(relativePath: "bob/copy.ogg")
        let after = try await catalog.recording(id: alices.id, visibleTo: nil)
        #expect(after.title == "Alice's retro")
        #expect(after.transcript == nil)
        #expect(after.ownerName == "alice")
    }

    @Test func aMembersSidecarCannotGiveTheRecordingToSomeoneElse() async throws {
        let log = CapturedLog()
        let (ingestor, _) = try await setUp(log: log)
        defer { try? FileManager.default.removeItem(atPath: root) }
        try copySample("retro.ogg", to: "bob/retro.ogg")
        try #"{"title":"Bob's notes","owner":"alice@example.com"}"#.write(toFile: inbox + "/bob/retro.json", atomically: true, encoding: .utf8)

        let recording = try recorded(try await ingestor.ingest(relativePath: "bob/retro.ogg"))
        #expect(recording.ownerName == "bob")
        let warning = log.all.first { $0.level == .warning && $0.message.contains("sidecar owner ignored") }
        #expect(warning?.metadata["path"] == "bob/retro.ogg")
        #expect(warning?.metadata["claimedOwner"] == "alice@example.com")
    }

    @Test func anAdminsSidecarMayGiveTheRecordingToSomeoneElse() async throws {
        let log = CapturedLog()
        let (ingestor, _) = try await setUp(log: log)
        defer { try? FileManager.default.removeItem(atPath: root) }
        try copySample("retro.ogg", to: "boss/retro.ogg")
        try #"{"owner":"alice@example.com"}"#.write(toFile: inbox + "/boss/retro.json", atomically: true, encoding: .utf8)
        try copySample("planning.flac", to: "bob/own.flac")
        try #"{"owner":"bob@example.com"}"#.write(toFile: inbox + "/bob/own.json", atomically: true, encoding: .utf8)

        #expect(try recorded(try await ingestor.ingest(relativePath: "boss/retro.ogg")).ownerName == "alice")
        #expect(try recorded(try await ingestor.ingest(relativePath: "bob/own.flac")).ownerName == "bob")
        #expect(!log.all.contains { $0.level == .warning }, "naming oneself is no forgery")
    }
}
