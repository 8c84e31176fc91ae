#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import StenoCatalog
import StenoCore
import StenoSQLite
import Synchronization
import Testing

@testable import StenoService

/// A file met while the system is short of something (descriptors, memory, disk) is retried,
/// not failed for good, and keeps its recording.
@Suite("Ingest transient failures")
struct IngestTransientFailureTests {
    let root = NSTemporaryDirectory() + "steno-transient-" + UUID().uuidString
    var inbox: String { root + "/inbox" }
    static let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// A file reader that fails with `code` the first `failures` times, then reads for real.
    final class FlakyReader: Sendable {
        let remaining: Mutex<Int>
        let code: Int32

        init(failures: Int, code: Int32) {
            remaining = Mutex(failures)
            self.code = code
        }

        func read(_ path: String, _ limit: Int) throws(ContentHasher.Failure) -> (hex: String, bytes: Int64, contents: [UInt8]?) {
            let fail = remaining.withLock { count in
                defer { count -= 1 }
                return count > 0
            }
            if fail { throw ContentHasher.Failure(description: "cannot open: \(String(cString: strerror(code)))", code: code) }
            return try ContentHasher.sha256(path: path, keepingUpTo: limit)
        }
    }

    func setUp(reader: FlakyReader) async throws -> (IngestJobHandler, SQLiteCatalog, JobQueue) {
        try FileManager.default.createDirectory(atPath: inbox + "/alice", withIntermediateDirectories: true)
        let catalog = try await SQLiteCatalog.open(path: root + "/catalog.sqlite")
        _ = try await catalog.addUser(UserDraft(name: "alice", emails: ["alice@example.com"]))
        let queue = JobQueue(store: catalog)
        let ingestor = RecordingIngestor(
            inbox: Inbox(inbox), store: catalog, timeZone: TimeZone(identifier: "UTC") ?? .current, hashFile: reader.read)
        return (IngestJobHandler(ingestor: ingestor, queue: queue), catalog, queue)
    }

    func copySample(_ name: String, to relative: String) throws {
        try FileManager.default.copyItem(atPath: RecordingIngestorTests.media + "/" + name, toPath: inbox + "/" + relative)
    }

    func context() -> JobContext { JobContext(logger: Self.quiet, workerID: "test/1/1") }

    @Test(arguments: [EMFILE, ENFILE, EIO, ENOSPC, ENOMEM, EAGAIN])
    func aPassingErrorRetriesTheJobAndCataloguesNothing(code: Int32) async throws {
        let (handler, catalog, _) = try await setUp(reader: FlakyReader(failures: 1, code: code))
        defer { try? FileManager.default.removeItem(atPath: root) }
        try copySample("retro.ogg", to: "alice/retro.ogg")

        do {
            _ = try await handler.ingestAlone("alice/retro.ogg")
            Issue.record("the attempt should fail")
        } catch let error as JobError {
            Issue.record("a passing error must not fail the job for good: \(error)")
        } catch {
            #expect("\(error)".contains(String(cString: strerror(code))))
        }
        #expect(try await catalog.recordings(RecordingQuery()).isEmpty, "nothing failed is catalogued")

        guard case .recorded = try await handler.ingestAlone("alice/retro.ogg") else { throw TestFailure("the retry did not succeed") }
        let recordings = try await catalog.recordings(RecordingQuery())
        #expect(recordings.count == 1)
        #expect(recordings.first?.status == .ready)
    }

    @Test func aPassingErrorInABatchLeavesTheJobToBeRetried() async throws {
        let (handler, catalog, queue) = try await setUp(reader: FlakyReader(failures: 1, code: EMFILE))
        defer { try? FileManager.default.removeItem(atPath: root) }
        try copySample("retro.ogg", to: "alice/retro.ogg")
        _ = try await queue.enqueue(IngestJobHandler.draft(path: "alice/retro.ogg"))
        let claims = try await catalog.claim(
            workerID: "test/1/1", kinds: [IngestJobHandler.kind], limits: [IngestJobHandler.kind: handler.maxBatchSize],
            leaseDuration: .seconds(60), now: Date())
        let outcomes = try await handler.run(IngestBatchTests.attempts(claims), context: context())
        guard case .failed(let error) = outcomes.first else { throw TestFailure("expected a failed attempt, got \(outcomes)") }
        #expect(!(error is JobError), "retried with backoff, not dead: \(error)")
        #expect(try await catalog.recordings(RecordingQuery()).isEmpty)
    }

    @Test func onTheLastAttemptANewFileIsCataloguedFailedAndAKnownOneKeepsItsRecording() async throws {
        let (handler, catalog, queue) = try await setUp(reader: FlakyReader(failures: 1, code: EIO))
        defer { try? FileManager.default.removeItem(atPath: root) }
        try copySample("retro.ogg", to: "alice/retro.ogg")

        _ = try await handler.ingestAlone("alice/retro.ogg", lastAttempt: true)
        let failed = try #require(try await catalog.recordings(RecordingQuery()).first)
        #expect(failed.status == .failed, "the file does not vanish when its job gives up")
        #expect(failed.failureReason?.contains(String(cString: strerror(EIO))) == true, "\(failed.failureReason ?? "")")

        // Read at last, then changed and met by a passing error on a last attempt: it keeps its recording.
        _ = try await handler.ingestAlone("alice/retro.ogg", lastAttempt: true)
        let ready = try #require(try await catalog.recordings(RecordingQuery()).first)
        #expect(ready.status == .ready)
        let flaky = IngestJobHandler(
            ingestor: RecordingIngestor(inbox: Inbox(inbox), store: catalog, hashFile: FlakyReader(failures: 1, code: EIO).read), queue: queue)
        try FileManager.default.removeItem(atPath: inbox + "/alice/retro.ogg")
        try copySample("planning.flac", to: "alice/retro.ogg")
        await #expect(throws: TransientIngestError.self) { _ = try await flaky.ingestAlone("alice/retro.ogg", lastAttempt: true) }
        let kept = try await catalog.recordings(RecordingQuery())
        #expect(kept.map(\.id) == [ready.id])
        #expect(kept.first?.status == .ready)
    }

    @Test func runningOutOfDescriptorsOnTheLastAttemptFailsNothing() async throws {
        let (handler, catalog, _) = try await setUp(reader: FlakyReader(failures: 1, code: EMFILE))
        defer { try? FileManager.default.removeItem(atPath: root) }
        try copySample("retro.ogg", to: "alice/retro.ogg")
        // The daemon, not the file, ran out: the file is postponed to a new job, never failed.
        await #expect {
            _ = try await handler.ingestAlone("alice/retro.ogg", lastAttempt: true)
        } throws: { error in
            "\(error)".contains("retried")
        }
        #expect(try await catalog.recordings(RecordingQuery()).isEmpty, "nothing is catalogued failed")
    }

    @Test func aFileThatFailedBeforeKeepsItsRecordingWhenReadAtLast() async throws {
        let (handler, catalog, _) = try await setUp(reader: FlakyReader(failures: 0, code: EMFILE))
        defer { try? FileManager.default.removeItem(atPath: root) }
        try copySample("retro.ogg", to: "alice/retro.ogg")
        // As an earlier version left it: failed for good, without a content hash.
        let failed = try await catalog.recordIngest(
            IngestRecord(
                path: "alice/retro.ogg", size: 0, modified: Date(), contentHash: nil, ownerID: nil,
                outcome: .failed(reason: "cannot open: Too many open files")))

        _ = try await handler.ingestAlone("alice/retro.ogg")
        let recordings = try await catalog.recordings(RecordingQuery())
        #expect(recordings.count == 1, "no second recording")
        #expect(recordings.first?.id == failed.id)
        #expect(recordings.first?.status == .ready)
        #expect(recordings.first?.paths == [RecordingPath(path: "alice/retro.ogg", isPresent: true)])
    }
}
