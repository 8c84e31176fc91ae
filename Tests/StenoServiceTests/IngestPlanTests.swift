import Foundation
import StenoCatalog
import StenoCore
import Testing

@testable import StenoService

/// The pure step of ingestion: readings in, one commit out, without a catalog or a file.
@Suite("Ingest plan")
struct IngestPlanTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    func claim(_ id: Int64, paths: [String], priority: Int = 0, attempts: Int = 1) -> ClaimedJob {
        let draft = (try? IngestJobHandler.draft(paths: paths, priority: priority)) ?? JobDraft(kind: "")
        let job = Job(
            id: id, kind: draft.kind, payload: draft.payload, state: .running, priority: priority, attempts: attempts, runAt: Self.now,
            uniqueKey: draft.uniqueKey, createdAt: Self.now, updatedAt: Self.now)
        return ClaimedJob(job: job, token: id * 10)
    }

    /// The job of one path that reads it again.
    func draft(_ path: String, priority: Int) -> JobDraft {
        (try? IngestJobHandler.draft(path: path, priority: priority)) ?? JobDraft(kind: "")
    }

    func record(_ path: String) -> IngestRecord {
        IngestRecord(
            path: path, size: 10, modified: Self.now, contentHash: "h-" + path, ownerID: 1,
            outcome: .ready(RecordingMetadata(format: "wav", codec: "pcm_s16le", duration: 1)), now: Self.now)
    }

    func reading(_ claim: ClaimedJob, _ readings: [Result<RecordingIngestor.Reading, any Error>]) -> IngestPlan.ClaimReading {
        IngestPlan.ClaimReading(claim: claim, paths: Result { () throws(JobError) in try IngestJobHandler.paths(of: claim.job) }, readings: readings)
    }

    @Test func everyReadingOfAJobOfOneFileBecomesItsAction() {
        let claims = (1...4).map { claim(Int64($0), paths: ["alice/\($0).wav"], priority: 3) }
        let plan = IngestPlan(
            [
                reading(claims[0], [.success(.record(record("alice/1.wav")))]),
                reading(claims[1], [.success(.gone("alice/2.wav"))]),
                reading(claims[2], [.success(.ignored("temporary"))]),
                reading(claims[3], [.success(.belongsTo(["alice/x.ogg", "alice/x.wav"]))]),
            ], linkMaxAttempts: 7)
        #expect(plan.jobs.map { try? $0.get() } == [0, 1, 2, 3])
        #expect(plan.splitOut.isEmpty)
        let expected: [IngestCommit.Action] = [
            .record(record("alice/1.wav")), .markGone, .ignore(reason: "temporary"), .companion(of: ["alice/x.ogg", "alice/x.wav"]),
        ]
        #expect(plan.commit.jobs.map { $0.files.map(\.action) } == expected.map { [$0] })
        #expect(plan.commit.jobs.map(\.claim) == claims)
        #expect(plan.commit.jobs.allSatisfy { !$0.listsFiles })
        // A sidecar's recordings are read again, at its job's priority.
        #expect(plan.commit.jobs[3].followUps == ["alice/x.ogg", "alice/x.wav"].map { draft($0, priority: 3) })
        #expect(plan.commit.jobs[0...2].allSatisfy { $0.followUps.isEmpty })
        #expect(plan.commit.linking == RecordingsJob(kind: LinkRecordingJobHandler.kind, priority: 3, maxAttempts: 7))
    }

    @Test func aJobOfOneFileFailsWithItsFileAndBadInputForGood() {
        let claims = (1...3).map { claim(Int64($0), paths: ["alice/\($0).wav"]) }
        let transient = TransientIngestError(path: "alice/2.wav", reason: "Too many open files")
        let plan = IngestPlan(
            [
                reading(claims[0], [.failure(IngestError.permanent("\"../x\" is not a path inside the inbox"))]),
                reading(claims[1], [.failure(transient)]),
                reading(claims[2], [.success(.record(record("alice/3.wav")))]),
            ], linkMaxAttempts: nil)
        #expect(plan.commit.jobs.map(\.claim) == [claims[2]], "only the job that can be written is in the commit")
        guard case .failure(let first) = plan.jobs[0], case .failure(let second) = plan.jobs[1], case .success(0) = plan.jobs[2] else {
            Issue.record("\(plan.jobs)")
            return
        }
        #expect(first as? JobError == .permanent("\"../x\" is not a path inside the inbox"))
        #expect(second is TransientIngestError, "a passing failure retries the job")
        #expect(plan.splitOut.isEmpty)
    }

    @Test func runningOutOfDescriptorsOnTheLastAttemptPostponesTheFileNeverFailsIt() throws {
        let maxAttempts = JobDraft.defaultMaxAttempts
        let last = claim(1, paths: ["alice/1.wav"], attempts: maxAttempts)
        let earlier = claim(2, paths: ["alice/2.wav"], attempts: 1)
        let exhausted = TransientIngestError(path: "alice/1.wav", reason: "Too many open files", code: EMFILE)
        let plan = IngestPlan(
            [reading(last, [.failure(exhausted)]), reading(earlier, [.failure(TransientIngestError(path: "alice/2.wav", reason: "x", code: EMFILE))])],
            linkMaxAttempts: nil, now: Self.now)
        // The last attempt completes, reading the file again a minute later in a job of its own.
        #expect(plan.commit.jobs.map(\.claim) == [last])
        guard case .retryAlone(let postponed) = plan.commit.jobs.first?.files.first?.action else {
            Issue.record("\(plan.commit.jobs)")
            return
        }
        #expect(try IngestJob.payload(of: Job(id: 3, kind: postponed.kind, payload: postponed.payload, state: .queued, priority: 0, attempts: 0, runAt: Self.now, uniqueKey: nil, createdAt: Self.now, updatedAt: Self.now)).filePaths() == ["alice/1.wav"])
        #expect(postponed.runAt == Self.now.addingTimeInterval(IngestJobHandler.exhaustionPause) && postponed.uniqueKey == nil)
        #expect(plan.postponed.map(\.path) == ["alice/1.wav"])
        // An earlier attempt just fails, to be retried with backoff.
        guard case .failure(let error) = plan.jobs[1] else {
            Issue.record("\(plan.jobs)")
            return
        }
        #expect(error is TransientIngestError)
    }

    @Test func aFileFailingInAJobOfManyIsSplitOutAndTheRestIsWritten() throws {
        let paths = ["alice/a.wav", "../out.wav", "alice/b.json"]
        let many = claim(9, paths: paths, priority: 2)
        let plan = IngestPlan(
            [
                reading(
                    many,
                    [
                        .success(.record(record("alice/a.wav"))), .failure(IngestError.permanent("outside")),
                        .success(.belongsTo(["alice/b.wav"])),
                    ])
            ], linkMaxAttempts: nil)
        #expect(plan.jobs.map { try? $0.get() } == [0])
        let job = plan.commit.jobs[0]
        #expect(job.listsFiles)
        #expect(job.files.map(\.path) == paths)
        #expect(job.files[1].action == .retryAlone(draft("../out.wav", priority: 2)))
        #expect(plan.splitOut.map(\.path) == ["../out.wav"])
        #expect(job.followUps == [draft("alice/b.wav", priority: 2)])
        // Should the job's commit fail alone, its recordings are split out too, nothing else changes.
        let split = try IngestPlan.splittingOutRecords(of: job)
        #expect(split.files.map(\.action) == [.retryAlone(draft("alice/a.wav", priority: 2))] + job.files.dropFirst().map(\.action))
    }

    @Test func aPayloadNamingNoPathFailsTheJobForGood() {
        var bad = claim(4, paths: ["x"])
        bad.job.payload = #"{"nopath":1}"#
        let plan = IngestPlan([reading(bad, [])], linkMaxAttempts: nil)
        #expect(plan.commit.jobs.isEmpty)
        guard case .failure(let error) = plan.jobs.first else {
            Issue.record("\(plan.jobs)")
            return
        }
        #expect(error is JobError)
    }

    @Test func theLinkJobOfACommitIsTheLinkHandlersOwnFormat() throws {
        let linking = RecordingsJob(kind: LinkRecordingJobHandler.kind, priority: 4, maxAttempts: nil)
        for ids in [[7], [9, 7, 9]] as [[Int64]] {
            let draft = try #require(linking.draft(recordingIDs: ids))
            let expected = try LinkRecordingJobHandler.draft(recordingIDs: Array(Set(ids)).sorted(), priority: 4)
            #expect(draft == expected)
        }
        #expect(linking.draft(recordingIDs: []) == nil)
    }
}
