import Foundation
import Logging
import StenoCatalog
import StenoCore
import StenoSQLite
import Synchronization
import Testing

@testable import StenoService

/// Large files share the ingest workers: one member's huge files never keep another member's
/// short recording waiting, and sparse files are refused before a worker hashes their holes.
@Suite("Ingest shares the workers among owners")
struct IngestFairShareTests {
    let root = NSTemporaryDirectory() + "steno-fair-share-" + UUID().uuidString
    var inbox: String { root + "/inbox" }
    static let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Hashes for real, but holds every file of bob's until ``open()``: a hash that takes as
    /// long as the test wants.
    final class HeldReader: Sendable {
        private let gate = DispatchSemaphore(value: 0)
        private let state = Mutex((opened: false, held: [String]()))

        var held: [String] { state.withLock { $0.held } }

        func open() {
            let waiting = state.withLock { state in
                defer { state.opened = true }
                return state.opened ? 0 : state.held.count
            }
            for _ in 0..<max(waiting, 2) { gate.signal() }
        }

        func read(_ path: String, _ limit: Int) throws(ContentHasher.Failure) -> (hex: String, bytes: Int64, contents: [UInt8]?) {
            if path.contains("/bob/") {
                let wait = state.withLock { state in
                    state.held.append(path)
                    return !state.opened
                }
                if wait { _ = gate.wait(timeout: .now() + 120) }
            }
            return try ContentHasher.sha256(path: path, keepingUpTo: limit)
        }
    }

    @Test func aMembersShortRecordingIsReadWhileAnotherMembersLargeFilesHash() async throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        for folder in ["alice", "bob"] { try FileManager.default.createDirectory(atPath: inbox + "/" + folder, withIntermediateDirectories: true) }
        let catalog = try await SQLiteCatalog.open(path: root + "/catalog.sqlite")
        for name in ["alice", "bob"] { _ = try await catalog.addUser(UserDraft(name: name, emails: ["\(name)@example.com"])) }
        let media = RecordingIngestorTests.media
        // Above the 20 KB threshold: bob's two recordings (25 and 32 KB). Below it: alice's (5.5 KB).
        try FileManager.default.copyItem(atPath: media + "/design-review.wav", toPath: inbox + "/bob/all-hands.wav")
        try FileManager.default.copyItem(atPath: media + "/planning.flac", toPath: inbox + "/bob/offsite.flac")
        try FileManager.default.copyItem(atPath: media + "/retro.ogg", toPath: inbox + "/alice/standup.ogg")

        let reader = HeldReader()
        defer { reader.open() }
        let queue = JobQueue(store: catalog)
        let ingestor = RecordingIngestor(
            inbox: Inbox(inbox), store: catalog, timeZone: TimeZone(identifier: "UTC") ?? .current,
            largeReads: LargeReadShare(workers: 2, threshold: 20_000), hashFile: reader.read)
        var settings = JobWorkerPool.Settings()
        settings.workers = 2
        settings.pollInterval = .milliseconds(20)
        let pool = JobWorkerPool(queue: queue, handlers: [IngestJobHandler(ingestor: ingestor, queue: queue)], settings: settings, logger: Self.quiet)
        let running = Task { try await pool.run() }
        defer { queue.signal.stop() }

        _ = try await queue.enqueue([try IngestJobHandler.draft(path: "bob/all-hands.wav"), try IngestJobHandler.draft(path: "bob/offsite.flac")])
        #expect(try await Self.waitUntil { !reader.held.isEmpty }, "no worker began to hash bob's files")
        _ = try await queue.enqueue(IngestJobHandler.draft(path: "alice/standup.ogg"))

        // The signal: alice's recording is ready while bob's first file is still being hashed.
        let aliceReady = try await Self.waitUntil {
            try await catalog.recordings(RecordingQuery()).contains { $0.paths.first?.path == "alice/standup.ogg" && $0.status == .ready }
        }
        #expect(aliceReady, "alice's recording waited behind bob's large files")
        #expect(reader.held.count == 1, "bob's second large file waits for his first: \(reader.held)")

        reader.open()
        let allReady = try await Self.waitUntil {
            let recordings = try await catalog.recordings(RecordingQuery())
            return recordings.count == 3 && recordings.allSatisfy { $0.status == .ready }
        }
        let ended = try await catalog.recordings(RecordingQuery()).map { ($0.paths.first?.path ?? "", $0.status) }
        #expect(allReady, "\(ended)")
        queue.signal.stop()
        try await running.value
    }

    @Test func theShareAllowsOneLargeFilePerFolderAndAllWorkersButOne() {
        let share = LargeReadShare(workers: 3, threshold: 100)
        let first = share.admit(folder: "bob", size: 100)
        guard case .granted = first else { Issue.record("the first large file is read: \(first)"); return }
        guard case .full = share.admit(folder: "bob", size: 500) else { Issue.record("bob's second waits"); return }
        guard case .small = share.admit(folder: "bob", size: 99) else { Issue.record("small files need no share"); return }
        let carol = share.admit(folder: "carol", size: 1000)
        guard case .granted = carol else { Issue.record("another folder's large file is read"); return }
        guard case .full = share.admit(folder: "dave", size: 1000) else { Issue.record("one worker stays for small files"); return }
        share.release(first)
        guard case .granted = share.admit(folder: "bob", size: 500) else { Issue.record("bob's next is read once his first is done"); return }
        let alone = LargeReadShare(workers: 1, threshold: 100)
        guard case .granted = alone.admit(folder: "bob", size: 100) else { Issue.record("a single worker still reads large files"); return }
    }

    @Test func aSparseFileIsRefusedWithoutReadingItsHoles() async throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: inbox + "/bob", withIntermediateDirectories: true)
        let catalog = try await SQLiteCatalog.open(path: root + "/catalog.sqlite")
        _ = try await catalog.addUser(UserDraft(name: "bob", emails: ["bob@example.com"]))
        // A valid WAV header and 64 GiB of nothing: truncate(1) makes it in an instant.
        let path = inbox + "/bob/huge.wav"
        try FileManager.default.copyItem(atPath: RecordingIngestorTests.media + "/design-review.wav", toPath: path)
        #expect(truncate(path, 64 << 30) == 0, "truncate: \(String(cString: strerror(errno)))")
        let reads = Mutex(0)
        let ingestor = RecordingIngestor(
            inbox: Inbox(inbox), store: catalog,
            hashFile: { path, limit throws(ContentHasher.Failure) in
                reads.withLock { $0 += 1 }
                return try ContentHasher.sha256(path: path, keepingUpTo: limit)
            })
        guard case .recorded(let recording) = try await ingestor.ingest(relativePath: "bob/huge.wav") else {
            throw TestFailure("bob/huge.wav was not catalogued")
        }
        #expect(recording.status == .failed)
        #expect(recording.failureReason?.contains("a sparse file: 64.0 GiB long") == true, "\(recording.failureReason ?? "")")
        #expect(reads.withLock { $0 } == 1)
    }

    @Test func aSmallFileWithAHoleAndADenseLargeFileAreHashed() throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        // Below the 64 MiB the check starts at: hashed, holes and all.
        let small = root + "/small.wav"
        #expect(FileManager.default.createFile(atPath: small, contents: Data("RIFF".utf8)))
        #expect(truncate(small, 32 << 20) == 0)
        #expect(try ContentHasher.sha256(path: small).bytes == 32 << 20)
        // Every byte written: no holes, whatever its size.
        let dense = root + "/dense.wav"
        #expect(FileManager.default.createFile(atPath: dense, contents: Data(repeating: 7, count: 65 << 20)))
        #expect(try ContentHasher.sha256(path: dense).bytes == 65 << 20)
    }

    /// Polls `condition` every 20 ms for up to 60 s.
    static func waitUntil(_ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return try await condition()
    }
}
