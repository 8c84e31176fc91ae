#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StenoCatalog
import StenoCore
import StenoSQLite
import Testing

@testable import StenoService

/// A file whose name is not UTF-8 (byte 0xFF) is found, catalogued under its escaped name,
/// and seen to go: it does not vanish silently.
@Suite("Non-UTF-8 file names")
struct NonUTF8FileNameTests {
    let root = NSTemporaryDirectory() + "steno-bytes-" + UUID().uuidString
    var inbox: String { root + "/inbox" }

    /// Copies a sample to `folder/` + `name` bytes, returning the name as the catalog writes it.
    func copySample(_ sample: String, to folder: String, name: [UInt8]) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: RecordingIngestorTests.media + "/" + sample))
        let path = Array((inbox + "/" + folder + "/").utf8) + name
        let fd = open(path.map { CChar(bitPattern: $0) } + [0], O_WRONLY | O_CREAT | O_EXCL, 0o644)
        guard fd >= 0 else { throw TestFailure("cannot create the file: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let written = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == data.count else { throw TestFailure("short write") }
    }

    @Test func aNameWithByte0xFFIsCataloguedEscapedAndGoesWhenDeleted() async throws {
        try FileManager.default.createDirectory(atPath: inbox + "/alice", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let catalog = try await SQLiteCatalog.open(path: root + "/catalog.sqlite")
        _ = try await catalog.addUser(UserDraft(name: "alice", emails: ["alice@example.com"]))
        let ingestor = RecordingIngestor(inbox: Inbox(inbox), store: catalog)
        try copySample("retro.ogg", to: "alice", name: Array("retro-".utf8) + [0xFF] + Array(".ogg".utf8))

        let found = InboxScanner.scan(inbox: inbox).files
        #expect(Array(found.keys) == ["alice/retro-\\xFF.ogg"])
        #expect(found["alice/retro-\\xFF.ogg"]?.size ?? 0 > 0, "its signature is read from the real file")

        guard case .recorded(let recording) = try await ingestor.ingest(relativePath: "alice/retro-\\xFF.ogg") else {
            throw TestFailure("not catalogued")
        }
        #expect(recording.status == .ready, "\(recording.failureReason ?? "")")
        #expect(recording.ownerName == "alice")
        #expect(recording.paths == [RecordingPath(path: "alice/retro-\\xFF.ogg", isPresent: true)])

        let fileName = Array((inbox + "/alice/retro-").utf8) + [0xFF] + Array(".ogg".utf8)
        #expect(unlink(fileName.map { CChar(bitPattern: $0) } + [0]) == 0)
        guard case .gone(let gone) = try await ingestor.ingest(relativePath: "alice/retro-\\xFF.ogg") else { throw TestFailure("not gone") }
        #expect(gone?.id == recording.id)
        #expect(gone?.status == .missing)
    }

    @Test func inotifyNamesKeepTheirBytes() {
        var bytes: [UInt8] = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0]
        bytes += [0x61, 0xFF, 0x2E, 0x77, 0x61, 0x76, 0, 0]
        #expect(InotifyReader.decode(bytes[...]).first?.name == "a\\xFF.wav")
    }
}
