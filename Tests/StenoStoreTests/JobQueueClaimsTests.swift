import Foundation
import StenoCore
import Testing

@testable import StenoStore

/// Many jobs in one transaction — enqueues, claims of several jobs, completions, and fenced
/// ingests: unique keys, priorities and fencing per job hold as they do for one job.
@Suite("Job queue claims of many jobs")
struct JobQueueClaimsTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    func at(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }

    func ingestDraft(_ path: String, priority: Int = 0) -> JobDraft {
        JobDraft(kind: "ingest", payload: #"{"path":"\#(path)"}"#, priority: priority, runAt: at(-1), uniqueKey: "ingest:" + path)
    }

    @Test func batchEnqueueRespectsUniqueKeysWithinAndAcrossBatches() async throws {
        let temporary = TemporaryCatalog()
        let catalog = try await temporary.open()
        let earlier = try await catalog.enqueue(ingestDraft("a.wav"))
        let results = try await catalog.enqueue([
            ingestDraft("a.wav"), ingestDraft("b.wav"), ingestDraft("c.wav"), ingestDraft("b.wav"),
            JobDraft(kind: "other", runAt: at(-1)),
        ])
        #expect(results.map(\.isNew) == [false, true, true, false, true])
        #expect(results[0] == .alreadyLive(earlier.job))
        #expect(results[3].job.id == results[1].job.id)
        #expect(results[1].job.state == .queued)
        #expect(results[1].job.uniqueKey == "ingest:b.wav")
        #expect(try await catalog.jobs(state: .queued, kind: "ingest", afterID: nil, limit: 100).count == 3)
        #expect(try await catalog.enqueue([JobDraft]()).isEmpty)
    }

    @Test func batchEnqueueOfABadDraftAddsNothing() async throws {
        let temporary = TemporaryCatalog()
        let catalog = try await temporary.open()
        await #expect(throws: StoreError.self) {
            _ = try await catalog.enqueue([ingestDraft("a.wav"), JobDraft(kind: "k", payload: "not json")])
        }
        #expect(try await catalog.jobs(state: nil, kind: nil, afterID: nil, limit: 10).isEmpty)
    }

    @Test func batchClaimTakesTheHeadsKindAndPriorityUpToTheLimit() async throws {
        let temporary = TemporaryCatalog()
        let catalog = try await temporary.open()
        let ingests = try await catalog.enqueue((0..<5).map { ingestDraft("f\($0).wav") }).map(\.job)
        let urgent = try await catalog.enqueue(JobDraft(kind: "sync", priority: 10, runAt: at(-1))).job
        let lowIngest = try await catalog.enqueue(ingestDraft("low.wav", priority: -5)).job
        let limits = ["ingest": 3]
        // The most urgent job is not batchable: a batch of one.
        let first = try await catalog.claim(workerID: "w1", kinds: nil, limits: limits, leaseDuration: .seconds(60), now: at(0))
        #expect(first.map(\.job.id) == [urgent.id])
        let second = try await catalog.claim(workerID: "w1", kinds: nil, limits: limits, leaseDuration: .seconds(60), now: at(0))
        #expect(second.map(\.job.id) == ingests.prefix(3).map(\.id))
        #expect(second.allSatisfy { $0.job.state == .running && $0.job.attempts == 1 && $0.token == 1 && $0.job.leaseOwner == "w1" })
        // The rest of the same priority, but never the lower-priority job with them.
        let third = try await catalog.claim(workerID: "w2", kinds: ["ingest"], limits: limits, leaseDuration: .seconds(60), now: at(0))
        #expect(third.map(\.job.id) == ingests.suffix(2).map(\.id))
        let fourth = try await catalog.claim(workerID: "w2", kinds: ["ingest"], limits: limits, leaseDuration: .seconds(60), now: at(0))
        #expect(fourth.map(\.job.id) == [lowIngest.id])
        #expect(try await catalog.claim(workerID: "w2", kinds: nil, limits: limits, leaseDuration: .seconds(60), now: at(0)).isEmpty)
    }

    @Test func batchCompleteRejectsAStaleTokenAndRecordsTheRest() async throws {
        let temporary = TemporaryCatalog()
        let catalog = try await temporary.open()
        _ = try await catalog.enqueue((0..<3).map { ingestDraft("f\($0).wav") })
        let claims = try await catalog.claim(
            workerID: "slow", kinds: nil, limits: ["ingest": 3], leaseDuration: .seconds(10), now: at(0))
        #expect(claims.count == 3)
        // The middle job's lease runs out and another worker takes it over.
        #expect(try await catalog.heartbeat([claims[0], claims[2]], extendBy: .seconds(60), now: at(5)) == [claims[0].job.id, claims[2].job.id])
        #expect(try await catalog.requeueExpiredLeases(now: at(11)) == 1)
        let rescuer = try #require(try await catalog.claim(workerID: "fast", kinds: nil, limits: [:], leaseDuration: .seconds(60), now: at(12)).first)
        #expect(rescuer.job.id == claims[1].job.id)
        #expect(rescuer.token == 2)
        #expect(try await catalog.heartbeat(claims, extendBy: .seconds(60), now: at(13)) == [claims[0].job.id, claims[2].job.id])
        let recorded = try await catalog.complete(
            claims.map { JobCompletion(claim: $0, result: #"{"by":"slow"}"#) }, now: at(14))
        #expect(recorded == [true, false, true])
        #expect(try await catalog.job(id: claims[0].job.id).state == .succeeded)
        #expect(try await catalog.job(id: claims[2].job.id).result == #"{"by":"slow"}"#)
        let rescued = try await catalog.job(id: rescuer.job.id)
        #expect(rescued.state == .running)
        #expect(rescued.leaseOwner == "fast")
        #expect(try await catalog.complete([JobCompletion(claim: rescuer, result: #"{"by":"fast"}"#)], now: at(15)) == [true])
        #expect(try await catalog.job(id: rescuer.job.id).result == #"{"by":"fast"}"#)
    }

    @Test func batchCompleteWithAResultThatIsNotJSONRecordsNothing() async throws {
        let temporary = TemporaryCatalog()
        let catalog = try await temporary.open()
        _ = try await catalog.enqueue((0..<2).map { ingestDraft("f\($0).wav") })
        let claims = try await catalog.claim(workerID: "w", kinds: nil, limits: ["ingest": 2], leaseDuration: .seconds(60), now: at(0))
        await #expect(throws: StoreError.self) {
            _ = try await catalog.complete([JobCompletion(claim: claims[0], result: nil), JobCompletion(claim: claims[1], result: "{")], now: at(1))
        }
        #expect(try await catalog.job(id: claims[0].job.id).state == .running)
    }

    @Test func fencedIngestsStoreOutcomesAndCompleteJobsExceptStaleOnes() async throws {
        let temporary = TemporaryCatalog()
        let catalog = try await temporary.open()
        let paths = ["alice/a.wav", "alice/b.wav", "alice/c.wav", "alice/copy-of-a.wav"]
        _ = try await catalog.enqueue(paths.map { ingestDraft($0) })
        let claims = try await catalog.claim(workerID: "slow", kinds: nil, limits: ["ingest": 10], leaseDuration: .seconds(10), now: at(0))
        #expect(claims.count == 4)
        // b's lease expires and a faster worker takes it.
        _ = try await catalog.heartbeat([claims[0], claims[2], claims[3]], extendBy: .seconds(60), now: at(5))
        #expect(try await catalog.requeueExpiredLeases(now: at(11)) == 1)
        let rescuer = try #require(try await catalog.claim(workerID: "fast", kinds: nil, limits: [:], leaseDuration: .seconds(60), now: at(12)).first)
        let metadata = RecordingMetadata(format: "wav", codec: "pcm_s16le", duration: 2.5)
        func record(_ path: String, hash: String, failed: String? = nil) -> IngestRecord {
            IngestRecord(
                path: path, size: 100, modified: at(-100), contentHash: hash, ownerID: nil,
                outcome: failed.map { .failed(reason: $0) } ?? .ready(metadata), now: at(13))
        }
        let items = [
            FencedIngest(claim: claims[0], record: record("alice/a.wav", hash: "ha")),
            FencedIngest(claim: claims[1], record: record("alice/b.wav", hash: "hb")),
            FencedIngest(claim: claims[2], record: record("alice/c.wav", hash: "hc", failed: "truncated")),
            FencedIngest(claim: claims[3], record: record("alice/copy-of-a.wav", hash: "ha")),
        ]
        let results = try await catalog.recordIngests(
            items, jobResult: { _, recordings in #"{"recording":\#(recordings[0].id)}"# },
            followUps: { recordings in
                recordings.filter { $0.status == .ready }.map { recording in
                    JobDraft(kind: "link", payload: #"{"recording":\#(recording.id)}"#, uniqueKey: "link:\(recording.id)")
                }
            }, now: at(14))
        guard case .recorded(let a) = results[0], case .recorded(let c) = results[2], case .recorded(let copy) = results[3] else {
            Issue.record("expected recordings, got \(results)")
            return
        }
        #expect(results[1] == .staleLease)
        #expect(a.id == copy.id)
        #expect(Set(copy.paths.map(\.path)) == ["alice/a.wav", "alice/copy-of-a.wav"])
        #expect(c.status == .failed)
        #expect(c.failureReason == "truncated")
        // The stale item wrote neither its recording nor its job's completion.
        #expect(try await catalog.pathState("alice/b.wav") == nil)
        #expect(try await catalog.job(id: rescuer.job.id).state == .running)
        #expect(try await catalog.job(id: claims[0].job.id).result == #"{"recording":\#(a.id)}"#)
        #expect(try await catalog.job(id: claims[2].job.id).state == .succeeded)
        let states = try await catalog.pathStates(["alice/a.wav", "alice/c.wav", "alice/b.wav", "nowhere \"odd\".wav"])
        #expect(Set(states.keys) == ["alice/a.wav", "alice/c.wav"])
        #expect(states["alice/a.wav"]?.recordingID == a.id)
        #expect(states["alice/a.wav"]?.size == 100)
        // One link job for the ready recording (its copy's draft found the key live), none
        // for the failed one or the stale item.
        let links = try await catalog.jobs(state: .queued, kind: "link", afterID: nil, limit: 10)
        #expect(links.map(\.payload) == [#"{"recording":\#(a.id)}"#])
    }

    @Test func aBadFollowUpWritesNothingOfTheBatch() async throws {
        let temporary = TemporaryCatalog()
        let catalog = try await temporary.open()
        _ = try await catalog.enqueue([ingestDraft("alice/a.wav")])
        let claims = try await catalog.claim(workerID: "w", kinds: nil, limits: ["ingest": 10], leaseDuration: .seconds(60), now: at(0))
        let record = IngestRecord(
            path: "alice/a.wav", size: 100, modified: at(-100), contentHash: "ha", ownerID: nil,
            outcome: .ready(RecordingMetadata(format: "wav", codec: "pcm_s16le", duration: 1)), now: at(1))
        await #expect(throws: StoreError.self) {
            _ = try await catalog.recordIngests(
                [FencedIngest(claim: claims[0], record: record)], jobResult: { _, _ in nil },
                followUps: { _ in [JobDraft(kind: "link", payload: "{not json")] }, now: at(2))
        }
        #expect(try await catalog.pathState("alice/a.wav") == nil)
        #expect(try await catalog.job(id: claims[0].job.id).state == .running)
    }

    @Test func filesOfOneJobAreStoredTogetherAndTheJobCompletedOnce() async throws {
        let temporary = TemporaryCatalog()
        let catalog = try await temporary.open()
        _ = try await catalog.enqueue([JobDraft(kind: "ingest", payload: #"{"paths":["alice/a.wav","alice/b.wav"]}"#, runAt: at(-1))])
        let claims = try await catalog.claim(workerID: "w", kinds: nil, limits: ["ingest": 4], leaseDuration: .seconds(60), now: at(0))
        let claim = try #require(claims.first)
        func record(_ path: String, hash: String) -> IngestRecord {
            IngestRecord(
                path: path, size: 100, modified: at(-100), contentHash: hash, ownerID: nil,
                outcome: .ready(RecordingMetadata(format: "wav", codec: "pcm_s16le", duration: 1)), now: at(1))
        }
        let results = try await catalog.recordIngests(
            [FencedIngest(claim: claim, record: record("alice/a.wav", hash: "ha")), FencedIngest(claim: claim, record: record("alice/b.wav", hash: "hb"))],
            jobResult: { _, recordings in "[" + recordings.map { String($0.id) }.joined(separator: ",") + "]" },
            followUps: { recordings in [JobDraft(kind: "link", payload: "{\"count\":\(recordings.count)}")] }, now: at(2))
        guard case .recorded(let a) = results[0], case .recorded(let b) = results[1] else {
            Issue.record("expected two recordings, got \(results)")
            return
        }
        let job = try await catalog.job(id: claim.job.id)
        #expect(job.state == .succeeded && job.result == "[\(a.id),\(b.id)]")
        #expect(try await catalog.jobs(state: .queued, kind: "link", afterID: nil, limit: 10).map(\.payload) == [#"{"count":2}"#])
    }
}
