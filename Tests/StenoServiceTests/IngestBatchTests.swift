import Foundation
import Logging
import StenoAPI
import StenoCatalog
import StenoCore
import StenoSQLite
import StenoTesting
import Synchronization
import Testing

@testable import StenoService

/// The batched ingest path: the handler reads a batch of claimed jobs together and stores
/// their outcomes with the job completions in one transaction, fenced per job; the pool
/// claims batches for batch handlers and records what they leave to it.
@Suite("Batched ingestion")
struct IngestBatchTests {
    let root = NSTemporaryDirectory() + "steno-batch-" + UUID().uuidString
    var inbox: String { root + "/inbox" }
    static let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    func setUp() async throws -> (IngestJobHandler, SQLiteCatalog, JobQueue) {
        try FileManager.default.createDirectory(atPath: inbox + "/alice", withIntermediateDirectories: true)
        let catalog = try await SQLiteCatalog.open(path: root + "/catalog.sqlite")
        _ = try await catalog.addUser(UserDraft(name: "alice", emails: ["alice@example.com"]))
        let queue = JobQueue(store: catalog)
        let ingestor = RecordingIngestor(inbox: Inbox(inbox), store: catalog, timeZone: TimeZone(identifier: "UTC") ?? .current)
        return (IngestJobHandler(ingestor: ingestor, queue: queue), catalog, queue)
    }

    func copySample(_ name: String, to relative: String) throws {
        try FileManager.default.copyItem(atPath: RecordingIngestorTests.media + "/" + name, toPath: inbox + "/" + relative)
    }

    func context() -> JobContext { JobContext(logger: Self.quiet, workerID: "test/1/1") }

    /// Claims as the pool hands them to the handler, with their payloads read.
    static func attempts(_ claims: [ClaimedJob]) throws -> [JobAttempt<IngestJob>] {
        try claims.map { JobAttempt(claim: $0, payload: try IngestJob.payload(of: $0.job)) }
    }

    /// The recordings a `link` payload names; nil when it names none or does not read.
    static func linked(_ payload: String) -> [Int64]? {
        (try? LinkRecordingJob.payload(from: payload))?.recordingIDs
    }

    @Test func aBatchStoresEveryOutcomeAndLeavesABadPayloadToThePool() async throws {
        let (handler, catalog, queue) = try await setUp()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try copySample("planning.flac", to: "alice/planning.flac")
        try copySample("retro.ogg", to: "alice/retro.ogg")
        try copySample("planning.flac", to: "alice/planning-copy.flac")
        try "not audio".write(toFile: inbox + "/alice/notes.mp3", atomically: true, encoding: .utf8)
        try #"{"title":"Retro"}"#.write(toFile: inbox + "/alice/retro.json", atomically: true, encoding: .utf8)
        let paths = ["alice/planning.flac", "alice/retro.ogg", "alice/planning-copy.flac", "alice/notes.mp3", "alice/retro.json", "alice/gone.wav"]
        var drafts = try paths.map { try IngestJobHandler.draft(path: $0) }
        drafts.append(JobDraft(kind: IngestJobHandler.kind, payload: #"{"nopath":1}"#))
        _ = try await queue.enqueue(drafts)
        let claims = try await catalog.claim(
            workerID: "test/1/1", kinds: [IngestJobHandler.kind], limits: [IngestJobHandler.kind: handler.maxBatchSize],
            leaseDuration: .seconds(60), now: Date())
        #expect(claims.count == 7)

        let outcomes = try await handler.run(Self.attempts(claims), context: context())
        #expect(outcomes.count == 7)
        // Recordings (ready or failed) were stored and their jobs completed in the handler's transaction.
        for index in 0..<4 {
            guard case .recorded = outcomes[index] else {
                Issue.record("\(paths[index]): expected .recorded, got \(outcomes[index])")
                continue
            }
            let job = try await catalog.job(id: claims[index].job.id)
            #expect(job.state == .succeeded, "\(paths[index])")
            #expect(job.result?.contains("\"recording\"") == true, "\(paths[index])")
        }
        let recordings = try await catalog.recordings(RecordingQuery())
        #expect(recordings.count == 3)
        let planning = recordings.first { $0.paths.contains { $0.path == "alice/planning.flac" } }
        #expect(planning?.paths.count == 2, "a copy is one recording with two paths")
        let retro = recordings.first { $0.paths.contains { $0.path == "alice/retro.ogg" } }
        #expect(retro?.title == "Retro", "the sidecar is paired")
        #expect(retro?.ownerName == "alice")
        let notes = recordings.first { $0.paths.contains { $0.path == "alice/notes.mp3" } }
        #expect(notes?.status == .failed)
        #expect(notes?.failureReason?.isEmpty == false)
        // The sidecar and the missing file were completed in the same transaction; the bad payload is left to the pool.
        for (index, entry) in [(4, "companionOf"), (5, "gone")] {
            guard case .recorded = outcomes[index] else {
                Issue.record("\(paths[index]): expected .recorded, got \(outcomes[index])")
                continue
            }
            let job = try await catalog.job(id: claims[index].job.id)
            #expect(job.state == .succeeded, "\(paths[index])")
            #expect(job.result?.contains(entry) == true, "\(paths[index]): \(job.result ?? "")")
        }
        guard case .failed(let error) = outcomes[6] else {
            Issue.record("bad payload: \(outcomes[6])")
            return
        }
        #expect(error is JobError)
        // The sidecar queued its recording again (its first job is still running: one live job per path).
        #expect(try await catalog.jobs(state: .queued, kind: IngestJobHandler.kind, afterID: nil, limit: 10).isEmpty)
        // The batch's ready recordings are linked by one job, not one job each.
        let linking = try await catalog.jobs(state: .queued, kind: LinkRecordingJobHandler.kind, afterID: nil, limit: 10)
        #expect(linking.count == 1)
        let ready = recordings.filter { $0.status == .ready }.map(\.id).sorted()
        #expect(linking.first.flatMap { Self.linked($0.payload) } == ready)
    }

    @Test func aJobOfManyFilesStoresThemTogetherAndSplitsOutAFailure() async throws {
        let (handler, catalog, queue) = try await setUp()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try copySample("planning.flac", to: "alice/planning.flac")
        try copySample("retro.ogg", to: "alice/retro.ogg")
        try "not audio".write(toFile: inbox + "/alice/notes.mp3", atomically: true, encoding: .utf8)
        let paths = ["alice/planning.flac", "alice/retro.ogg", "alice/notes.mp3", "alice/gone.wav", "../outside.wav"]
        let drafts = try IngestJobHandler.drafts(paths: paths)
        #expect(drafts.count == 1 && drafts[0].uniqueKey == nil)
        _ = try await queue.enqueue(drafts)
        let claims = try await catalog.claim(
            workerID: "test/1/1", kinds: [IngestJobHandler.kind], limits: [IngestJobHandler.kind: handler.maxBatchSize],
            leaseDuration: .seconds(60), now: Date())
        #expect(claims.count == 1)
        let outcomes = try await handler.run(Self.attempts(claims), context: context())
        guard case .recorded = outcomes[0] else {
            Issue.record("expected the job completed with its files, got \(outcomes[0])")
            return
        }
        let job = try await catalog.job(id: claims[0].job.id)
        #expect(job.state == .succeeded)
        let files = try #require((try? JSONValue.parse(job.result ?? ""))?["files"])
        #expect(files[0]?["status"]?.stringValue == "ready" && files[2]?["status"]?.stringValue == "failed")
        #expect(files[3]?["gone"] == true)
        // The path outside the inbox failed alone: it was split out into a job of its own.
        let retried = try #require(files[4]?["retriedAs"]?.intValue)
        let split = try await catalog.job(id: retried)
        #expect(split.state == .queued && split.payload.contains("../outside.wav"))
        #expect(try await catalog.recordings(RecordingQuery()).count == 3)
        let linking = try await catalog.jobs(state: .queued, kind: LinkRecordingJobHandler.kind, afterID: nil, limit: 10)
        #expect(linking.count == 1)
    }

    @Test func linkPayloadsNameOneRecordingOrMany() throws {
        #expect(Self.linked(#"{"recording":5}"#) == [5])
        #expect(Self.linked(#"{"recordings":[3,1,2]}"#) == [3, 1, 2])
        #expect(Self.linked(#"{"recordings":[1,"x"]}"#) == nil)
        #expect(Self.linked(#"{"recordings":[]}"#) == nil)
        #expect(Self.linked("{}") == nil)
        let one = try LinkRecordingJobHandler.draft(recordingIDs: [7])
        #expect(one.uniqueKey == "link:7" && Self.linked(one.payload) == [7])
        let many = try LinkRecordingJobHandler.draft(recordingIDs: [7, 9])
        #expect(many.uniqueKey == nil && Self.linked(many.payload) == [7, 9])
    }

    @Test func aFileTheCatalogRefusesFailsAloneAndTheRestOfItsBatchIsStored() async throws {
        let (handler, catalog, queue) = try await setUp()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try copySample("planning.flac", to: "alice/good.flac")
        try copySample("retro.ogg", to: "alice/poison.ogg")
        try copySample("customer-call.mp3", to: "alice/call.mp3")
        try copySample("design-review.wav", to: "alice/poison-too.wav")
        // The catalog refuses the poison files' paths, so the batch cannot be stored at once.
        let sqlite = try ProcessRunner.run("/usr/bin/sqlite3", [
            root + "/catalog.sqlite",
            "CREATE TRIGGER poison BEFORE INSERT ON recording_paths WHEN NEW.path LIKE 'alice/poison%' BEGIN SELECT RAISE(ABORT, 'poisoned'); END;",
        ])
        try #require(sqlite.status == 0, "\(sqlite)")
        _ = try await queue.enqueue(
            [try IngestJobHandler.draft(path: "alice/good.flac"), try IngestJobHandler.draft(path: "alice/poison.ogg")]
                + (try IngestJobHandler.drafts(paths: ["alice/call.mp3", "alice/poison-too.wav"])))
        let claims = try await catalog.claim(
            workerID: "test/1/1", kinds: [IngestJobHandler.kind], limits: [IngestJobHandler.kind: handler.maxBatchSize],
            leaseDuration: .seconds(60), now: Date())
        #expect(claims.count == 3)

        let outcomes = try await handler.run(Self.attempts(claims), context: context())
        guard case .recorded = outcomes[0], case .failed(let error) = outcomes[1], case .recorded = outcomes[2] else {
            Issue.record("expected the good file stored, the poison one failed, the job of many stored: \(outcomes)")
            return
        }
        #expect("\(error)".contains("poisoned"))
        #expect(try await catalog.job(id: claims[0].job.id).state == .succeeded)
        // The job of many failed alone: its files were split out into jobs of one, each of which
        // stores its file or fails alone.
        let many = try await catalog.job(id: claims[2].job.id)
        #expect(many.state == .succeeded)
        let files = try #require((try? JSONValue.parse(many.result ?? ""))?["files"])
        let retried = try [0, 1].map { try #require(files[$0]?["retriedAs"]?.intValue) }
        let split = try await catalog.claim(
            workerID: "test/1/1", kinds: [IngestJobHandler.kind], limits: [IngestJobHandler.kind: handler.maxBatchSize],
            leaseDuration: .seconds(60), now: Date())
        #expect(split.map(\.job.id) == retried)
        let alone = try await handler.run(Self.attempts(split), context: context())
        guard case .recorded = alone[0], case .failed(let poisoned) = alone[1] else {
            Issue.record("expected call.mp3 stored and poison-too.wav failed: \(alone)")
            return
        }
        #expect("\(poisoned)".contains("poisoned"))
        let stored = try await catalog.recordings(RecordingQuery()).flatMap { $0.paths.map(\.path) }
        #expect(Set(stored) == ["alice/good.flac", "alice/call.mp3"])
    }

    @Test func aStaleClaimInABatchWritesNothingForItsFile() async throws {
        let (handler, catalog, queue) = try await setUp()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try copySample("planning.flac", to: "alice/a.flac")
        try copySample("retro.ogg", to: "alice/b.ogg")
        _ = try await queue.enqueue(["alice/a.flac", "alice/b.ogg"].map { try IngestJobHandler.draft(path: $0) })
        let start = Date()
        let claims = try await catalog.claim(
            workerID: "slow/1/1", kinds: nil, limits: [IngestJobHandler.kind: 10], leaseDuration: .seconds(1), now: start)
        #expect(claims.count == 2)
        // b's lease runs out and another worker takes its job over.
        #expect(try await catalog.heartbeat([claims[0]], extendBy: .seconds(60), now: start) == [claims[0].job.id])
        #expect(try await catalog.requeueExpiredLeases(now: start.addingTimeInterval(2)) == 1)
        let rescuer = try #require(try await catalog.claim(workerID: "fast/1/1", kinds: nil, limits: [:], leaseDuration: .seconds(60), now: start.addingTimeInterval(2)).first)
        #expect(rescuer.job.id == claims[1].job.id)

        let outcomes = try await handler.run(Self.attempts(claims), context: context())
        guard case .recorded = outcomes[0], case .recorded = outcomes[1] else {
            Issue.record("expected both handled by the batch: \(outcomes)")
            return
        }
        #expect(try await catalog.job(id: claims[0].job.id).state == .succeeded)
        let rescued = try await catalog.job(id: rescuer.job.id)
        #expect(rescued.state == .running)
        #expect(rescued.leaseOwner == "fast/1/1")
        #expect(try await catalog.pathState("alice/b.ogg") == nil, "the stale worker's outcome is dropped")
        #expect(try await catalog.pathState("alice/a.flac") != nil)
    }

    @Test func thePoolRunsABatchHandlerInBatchesAndRecordsWhatItLeaves() async throws {
        let folder = root
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let catalog = try await SQLiteCatalog.open(path: folder + "/catalog.sqlite")
        let queue = JobQueue(store: catalog)
        let handler = BatchProbe<ProbeJob>(maxBatchSize: 4)
        var settings = JobWorkerPool.Settings()
        settings.workers = 1
        settings.pollInterval = .milliseconds(20)
        settings.retryPolicy = RetryPolicy(base: .milliseconds(10), factor: 2, cap: .milliseconds(50), jitter: 0)
        // Queued before the pool starts, so the first claim sees them all.
        let jobs = try await queue.enqueue((0..<10).map { JobDraft(kind: "probe", payload: #"{"n":\#($0)}"#) }).map(\.job)
        let pool = JobWorkerPool(queue: queue, handlers: [handler], settings: settings, logger: Self.quiet)
        let running = Task { try await pool.run() }
        var finished = false
        for _ in 0..<1000 where !finished {
            finished = try await catalog.jobs(state: nil, kind: nil, afterID: nil, limit: 100).allSatisfy { !$0.state.isLive }
            if !finished { try await Task.sleep(for: .milliseconds(10)) }
        }
        queue.signal.stop()
        try await running.value
        #expect(finished)
        #expect(handler.batchSizes.prefix(2) == [4, 4])
        #expect(handler.batchSizes.reduce(0, +) == 12, "ten jobs and two second attempts")
        for job in jobs {
            let done = try await catalog.job(id: job.id)
            #expect(done.state == .succeeded, "job \(job.id)")
        }
        // n = 3 asked for a retry once; n = 5 failed once; the rest succeeded at once.
        #expect(try await catalog.job(id: jobs[3].id).attempts == 2)
        #expect(try await catalog.job(id: jobs[5].id).attempts == 2)
        #expect(try await catalog.job(id: jobs[0].id).result == #"{"n":0}"#)
    }
}

/// A handler of batches that records their sizes; job n = 3 asks for a retry and n = 5 fails
/// on their first attempt.
final class BatchProbe<Kind: TestJob>: JobHandler {
    let maxBatchSize: Int
    private let sizes = Mutex<[Int]>([])

    init(maxBatchSize: Int) {
        self.maxBatchSize = maxBatchSize
    }

    var batchSizes: [Int] { sizes.withLock { $0 } }

    struct Failure: Error {}

    func run(_ attempts: [JobAttempt<Kind>], context: JobContext) async throws -> [JobOutcome<JSONValue?>] {
        sizes.withLock { $0.append(attempts.count) }
        return attempts.map { attempt in
            let first = attempt.job.attempts == 1
            switch attempt.payload["n"]?.intValue {
            case 3 where first: return .retry(after: .milliseconds(10), reason: "later")
            case 5 where first: return .failed(Failure())
            default: return .succeeded(attempt.payload)
            }
        }
    }
}
