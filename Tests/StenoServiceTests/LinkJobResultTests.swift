import Foundation
import Logging
import StenoCatalog
import StenoCore
import StenoSQLite
import Testing

@testable import StenoService

/// `link` jobs linked together in one pass each report the links of their own recordings, so
/// `steno ingest --wait` counts how its files ended, not the files another command ingested
/// in the same batch.
@Suite("Link job results")
struct LinkJobResultTests {
    let root = NSTemporaryDirectory() + "steno-link-result-" + UUID().uuidString

    @Test func eachJobOfABatchReportsItsOwnRecordingsLinks() async throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let catalog = try await SQLiteCatalog.open(path: root + "/catalog.sqlite")
        let alice = try await catalog.addUser(UserDraft(name: "alice", emails: ["alice@example.com"]))
        let now = Date()
        var ids: [Int64] = []
        for index in 0..<3 {
            let start = now.addingTimeInterval(Double(index - 5) * 86_400)
            ids.append(
                try await catalog.recordIngest(
                    IngestRecord(
                        path: "alice/r\(index).wav", size: 10, modified: start, contentHash: "r\(index)", ownerID: alice.id,
                        outcome: .ready(RecordingMetadata(format: "wav", codec: "pcm", duration: 600, recordedAt: start, recordedAtSource: .sidecar)),
                        now: now)
                ).id)
        }
        let queue = JobQueue(store: catalog)
        _ = try await queue.enqueue([
            try LinkRecordingJobHandler.draft(recordingIDs: [ids[0], ids[1]]), try LinkRecordingJobHandler.draft(recordingIDs: [ids[2]]),
        ])
        let handler = LinkRecordingJobHandler(linker: RecordingLinker(store: catalog))
        let claims = try await catalog.claim(
            workerID: "test/1/1", kinds: [LinkRecordingJob.name], limits: [LinkRecordingJob.name: handler.maxBatchSize],
            leaseDuration: .seconds(60), now: Date())
        try #require(claims.count == 2)
        let outcomes = try await handler.run(
            claims.map { JobAttempt(claim: $0, payload: try LinkRecordingJob.payload(of: $0.job)) },
            context: JobContext(logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }), workerID: "test/1/1"))
        let links = outcomes.map { outcome -> [String: LinkState]? in
            guard case .succeeded(let result) = outcome else { return nil }
            return result.links
        }
        // No calendar: nothing to link to, each job names its own recordings only.
        #expect(links == [["\(ids[0])": .unlinked, "\(ids[1])": .unlinked], ["\(ids[2])": .unlinked]])
        #expect(outcomes.allSatisfy { if case .succeeded(let result) = $0 { result.batch == 2 } else { false } })
    }
}
