import Foundation
import StenoCore
import Testing

@testable import StenoCatalog
@testable import StenoSQLite

/// Many jobs in one transaction — enqueues, claims of several jobs, completions, and fenced
/// ingests: unique keys, priorities and fencing per job hold as they do for one job.
@Suite("Job queue claims of many jobs")
struct JobQueueClaimsTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    func at(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }

    func ingestDraft(_ path: String, priority: Int = 0) -> JobDraft {
        JobDraft(kind: "ingest", payload: #"{"path":"\#(path)"}"#, priority: priority, runAt: at(-1), uniqueKey: "ingest:" + path)
    }

    @Test(arguments: StoreBackend.available) func batchEnqueueRespectsUniqueKeysWithinAndAcrossBatches(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
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

    @Test(arguments: StoreBackend.available) func aLargeBatchGivesEachDraftItsOwnResult(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
        let live = try await catalog.enqueue(ingestDraft("live.wav")).job
        // Jobs without a key, keys new to the catalog (each twice), and a key already live.
        let drafts = (0..<240).map { index -> JobDraft in
            switch index % 4 {
            case 0: JobDraft(kind: "other", payload: #"{"n":\#(index)}"#, priority: index % 3, runAt: at(Double(index)))
            case 1, 2: ingestDraft("f\(index / 4).wav")
            default: index == 3 ? ingestDraft("live.wav") : JobDraft(kind: "other", payload: #"{"n":\#(index)}"#, maxAttempts: 1 + index % 5)
            }
        }
        let results = try await catalog.enqueue(drafts)
        #expect(results.count == drafts.count)
        for (index, (draft, result)) in zip(drafts, results).enumerated() {
            #expect(result.job.payload == draft.payload && result.job.uniqueKey == draft.uniqueKey, "draft \(index)")
            #expect(result.isNew == (index != 3 && index % 4 != 2), "draft \(index)")
            if draft.uniqueKey == nil {
                #expect(result.job.priority == draft.priority && result.job.maxAttempts == (draft.maxAttempts ?? JobDraft.defaultMaxAttempts))
                #expect(result.job.runAt == draft.runAt ?? result.job.createdAt, "draft \(index)")
            }
        }
        #expect(results[3] == .alreadyLive(live))
        #expect(results[2].job.id == results[1].job.id)
        let newIDs = results.filter(\.isNew).map(\.job.id)
        #expect(newIDs == newIDs.sorted() && Set(newIDs).count == newIDs.count, "ids in draft order")
        #expect(try await catalog.jobs(state: .queued, kind: nil, afterID: nil, limit: 1000).count == newIDs.count + 1)
    }

    @Test(arguments: StoreBackend.available) func batchEnqueueOfABadDraftAddsNothing(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
        await #expect(throws: StoreError.self) {
            _ = try await catalog.enqueue([ingestDraft("a.wav"), JobDraft(kind: "k", payload: "not json")])
        }
        #expect(try await catalog.jobs(state: nil, kind: nil, afterID: nil, limit: 10).isEmpty)
    }

    @Test(arguments: StoreBackend.available) func batchClaimTakesTheHeadsKindAndPriorityUpToTheLimit(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
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

    @Test(arguments: StoreBackend.available) func batchCompleteRejectsAStaleTokenAndRecordsTheRest(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
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

    @Test(arguments: StoreBackend.available) func batchCompleteWithAResultThatIsNotJSONRecordsNothing(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
        _ = try await catalog.enqueue((0..<2).map { ingestDraft("f\($0).wav") })
        let claims = try await catalog.claim(workerID: "w", kinds: nil, limits: ["ingest": 2], leaseDuration: .seconds(60), now: at(0))
        await #expect(throws: StoreError.self) {
            _ = try await catalog.complete([JobCompletion(claim: claims[0], result: nil), JobCompletion(claim: claims[1], result: "{")], now: at(1))
        }
        #expect(try await catalog.job(id: claims[0].job.id).state == .running)
    }

    /// A commit of one ingest job per record, linking what it stores ready.
    func commit(_ items: [(ClaimedJob, IngestRecord)]) -> IngestCommit {
        IngestCommit(
            jobs: items.map { IngestCommit.Job(claim: $0.0, files: [.init(path: $0.1.path, action: .record($0.1))], listsFiles: false) },
            linking: RecordingsJob(kind: "link", priority: 0, maxAttempts: nil))
    }

    @Test(arguments: StoreBackend.available) func fencedIngestsStoreOutcomesAndCompleteJobsExceptStaleOnes(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
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
        let ends = try await catalog.commitIngest(
            commit([
                (claims[0], record("alice/a.wav", hash: "ha")), (claims[1], record("alice/b.wav", hash: "hb")),
                (claims[2], record("alice/c.wav", hash: "hc", failed: "truncated")), (claims[3], record("alice/copy-of-a.wav", hash: "ha")),
            ]), now: at(14))
        guard case .completed(let first) = ends[0], case .recorded(let a) = first.first, case .completed(let third) = ends[2],
            case .recorded(let c) = third.first, case .completed(let fourth) = ends[3], case .recorded(let copy) = fourth.first
        else {
            Issue.record("expected recordings, got \(ends)")
            return
        }
        #expect(ends[1] == .staleLease)
        #expect(a.id == copy.id)
        #expect(Set(copy.paths.map(\.path)) == ["alice/a.wav", "alice/copy-of-a.wav"])
        #expect(c.status == .failed)
        #expect(c.failureReason == "truncated")
        // The stale item wrote neither its recording nor its job's completion.
        #expect(try await catalog.pathState("alice/b.wav") == nil)
        #expect(try await catalog.job(id: rescuer.job.id).state == .running)
        // A recording stored ready names the job that links it.
        let link = try #require(try await catalog.jobs(state: .queued, kind: "link", afterID: nil, limit: 10).first)
        #expect(try await catalog.job(id: claims[0].job.id).result == #"{"linkJob":\#(link.id),"recording":\#(a.id),"status":"ready"}"#)
        #expect(try await catalog.job(id: claims[2].job.id).state == .succeeded)
        let states = try await catalog.pathStates(["alice/a.wav", "alice/c.wav", "alice/b.wav", "nowhere \"odd\".wav"])
        #expect(Set(states.keys) == ["alice/a.wav", "alice/c.wav"])
        #expect(states["alice/a.wav"]?.recordingID == a.id)
        #expect(states["alice/a.wav"]?.size == 100)
        // One link job for the ready recording (stored twice, by a and its copy), none for the
        // failed one or the stale item.
        let links = try await catalog.jobs(state: .queued, kind: "link", afterID: nil, limit: 10)
        #expect(links.map(\.payload) == [#"{"recording":\#(a.id)}"#])
        #expect(links.map(\.uniqueKey) == ["link:\(a.id)"])
    }

    @Test(arguments: StoreBackend.available) func newFilesCommittedTogetherAreStoredAsOneFileAloneWouldBe(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
        let owner = try await catalog.addUser(UserDraft(name: "alice"))
        let metadata = RecordingMetadata(
            format: "m4a", codec: "aac", duration: 1234.5678, sampleRate: 44_100, channels: 2, recordedAt: at(-3600.25),
            recordedAtSource: .sidecar, title: "Quarterly review", iCalUIDHint: "uid-1", eventIDHint: "event-1", providerHint: "ics",
            sidecarJSON: #"{"title":"Quarterly review","extra":[1,2.5,"é"]}"#, transcript: "hello \"world\"\nsecond line",
            warnings: ["the file was cut short"])
        func record(_ path: String, hash: String, owner: Int64?, outcome: IngestRecord.Outcome) -> IngestRecord {
            IngestRecord(path: path, size: 4321, modified: at(-100), contentHash: hash, ownerID: owner, outcome: outcome, now: at(1))
        }
        // The same readings stored one at a time, as the reference.
        let aloneReady = try await catalog.recordIngest(record("alice/alone.m4a", hash: "h-alone", owner: owner.id, outcome: .ready(metadata)))
        let aloneFailed = try await catalog.recordIngest(
            record("alice/alone-bad.m4a", hash: "h-alone-bad", owner: nil, outcome: .failed(reason: "truncated")))
        _ = try await catalog.enqueue((0..<3).map { ingestDraft("alice/f\($0).m4a") })
        let claims = try await catalog.claim(workerID: "w", kinds: nil, limits: ["ingest": 3], leaseDuration: .seconds(60), now: at(0))
        #expect(claims.count == 3)
        let ends = try await catalog.commitIngest(
            commit([
                (claims[0], record("alice/f0.m4a", hash: "h-ready", owner: owner.id, outcome: .ready(metadata))),
                (claims[1], record("alice/f1.m4a", hash: "h-bad", owner: nil, outcome: .failed(reason: "truncated"))),
                // Content catalogued before: one more path of that recording.
                (claims[2], record("alice/f2.m4a", hash: "h-alone", owner: owner.id, outcome: .ready(metadata))),
            ]), now: at(2))
        let recordings = ends.compactMap { end -> Recording? in
            guard case .completed(let written) = end, case .recorded(let recording) = written.first else { return nil }
            return recording
        }
        #expect(recordings.count == 3, "\(ends)")
        guard recordings.count == 3 else { return }
        func comparable(_ recording: Recording) -> Recording {
            var recording = recording
            (recording.id, recording.contentHash, recording.paths) = (0, nil, [])
            return recording
        }
        #expect(comparable(recordings[0]) == comparable(aloneReady))
        #expect(comparable(recordings[1]) == comparable(aloneFailed))
        #expect(recordings[0].paths.map(\.path) == ["alice/f0.m4a"])
        #expect(recordings[2].id == aloneReady.id)
        #expect(Set(recordings[2].paths.map(\.path)) == ["alice/alone.m4a", "alice/f2.m4a"])
        #expect(try await catalog.pathState("alice/f0.m4a")?.recordingID == recordings[0].id)
        #expect(try await catalog.pathState("alice/f0.m4a")?.size == 4321)
        let hits = try await catalog.search("quarterly", visibleTo: nil, offset: 0, limit: 10).filter { $0.kind == "recording" }
        #expect(Set(hits.map(\.id)) == [aloneReady.id, recordings[0].id])
    }

    @Test(arguments: StoreBackend.available) func aBadFollowUpWritesNothingOfTheBatch(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
        _ = try await catalog.enqueue([ingestDraft("alice/a.wav")])
        let claims = try await catalog.claim(workerID: "w", kinds: nil, limits: ["ingest": 10], leaseDuration: .seconds(60), now: at(0))
        let record = IngestRecord(
            path: "alice/a.wav", size: 100, modified: at(-100), contentHash: "ha", ownerID: nil,
            outcome: .ready(RecordingMetadata(format: "wav", codec: "pcm_s16le", duration: 1)), now: at(1))
        var bad = commit([(claims[0], record)])
        bad.jobs[0].followUps = [JobDraft(kind: "link", payload: "{not json")]
        await #expect(throws: StoreError.self) { _ = try await catalog.commitIngest(bad, now: at(2)) }
        #expect(try await catalog.pathState("alice/a.wav") == nil)
        #expect(try await catalog.job(id: claims[0].job.id).state == .running)
    }

    @Test(arguments: StoreBackend.available) func aFileRetriedAloneAfterAnotherJobsFollowUpsNamesItsOwnJob(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
        _ = try await catalog.enqueue([ingestDraft("alice/x.json"), JobDraft(kind: "ingest", payload: #"{"paths":["../out.wav"]}"#)])
        let claims = try await catalog.claim(workerID: "w", kinds: nil, limits: ["ingest": 4], leaseDuration: .seconds(60), now: at(0))
        #expect(claims.count == 2)
        let companion = IngestCommit.Job(
            claim: claims[0], files: [.init(path: "alice/x.json", action: .companion(of: ["alice/x.wav"]))],
            followUps: [ingestDraft("alice/x.wav"), ingestDraft("alice/y.wav")], listsFiles: false)
        let retrying = IngestCommit.Job(
            claim: claims[1], files: [.init(path: "../out.wav", action: .retryAlone(ingestDraft("../out.wav")))], listsFiles: true)
        let ends = try await catalog.commitIngest(IngestCommit(jobs: [companion, retrying], linking: nil), now: at(1))
        guard case .completed(let written) = ends.last, case .retried(let retried) = written.first else {
            Issue.record("expected the file retried alone, got \(ends)")
            return
        }
        #expect(try await catalog.job(id: retried).payload == ingestDraft("../out.wav").payload)
        #expect(try await catalog.job(id: claims[1].job.id).result == #"{"files":[{"path":"../out.wav","retriedAs":\#(retried)}]}"#)
    }

    @Test(arguments: StoreBackend.available) func filesOfOneJobAreStoredTogetherAndTheJobCompletedOnce(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
        _ = try await catalog.enqueue([JobDraft(kind: "ingest", payload: #"{"paths":["alice/a.wav","alice/b.wav"]}"#, runAt: at(-1))])
        let claims = try await catalog.claim(workerID: "w", kinds: nil, limits: ["ingest": 4], leaseDuration: .seconds(60), now: at(0))
        let claim = try #require(claims.first)
        func record(_ path: String, hash: String) -> IngestRecord {
            IngestRecord(
                path: path, size: 100, modified: at(-100), contentHash: hash, ownerID: nil,
                outcome: .ready(RecordingMetadata(format: "wav", codec: "pcm_s16le", duration: 1)), now: at(1))
        }
        let files = [("alice/a.wav", "ha"), ("alice/b.wav", "hb")].map { IngestCommit.File(path: $0.0, action: .record(record($0.0, hash: $0.1))) }
        let ends = try await catalog.commitIngest(
            IngestCommit(
                jobs: [IngestCommit.Job(claim: claim, files: files, listsFiles: true)],
                linking: RecordingsJob(kind: "link", priority: 0, maxAttempts: 3)), now: at(2))
        guard case .completed(let written) = ends.first, case .recorded(let a) = written.first, case .recorded(let b) = written.last else {
            Issue.record("expected two recordings, got \(ends)")
            return
        }
        let job = try await catalog.job(id: claim.job.id)
        #expect(job.state == .succeeded)
        let links = try await catalog.jobs(state: .queued, kind: "link", afterID: nil, limit: 10)
        let linkID = try #require(links.first?.id)
        let entries = [
            #"{"linkJob":\#(linkID),"path":"alice/a.wav","recording":\#(a.id),"status":"ready"}"#,
            #"{"linkJob":\#(linkID),"path":"alice/b.wav","recording":\#(b.id),"status":"ready"}"#,
        ]
        #expect(job.result == #"{"files":["# + entries.joined(separator: ",") + "]}")
        #expect(links.map(\.payload) == [#"{"recordings":[\#(a.id),\#(b.id)]}"#])
        #expect(links.first?.maxAttempts == 3 && links.first?.uniqueKey == nil)
    }

    @Test(arguments: StoreBackend.available) func everyKindOfFileIsWrittenWithTheResultEntryItAlwaysHad(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
        let known = try await catalog.recordIngest(
            IngestRecord(
                path: "alice/old.wav", size: 1, modified: at(-100), contentHash: "ho", ownerID: nil,
                outcome: .ready(RecordingMetadata(format: "wav", codec: "pcm_s16le", duration: 1)), now: at(-50)))
        _ = try await catalog.enqueue([
            JobDraft(kind: "ingest", payload: #"{"paths":["alice/old.wav","alice/never.wav","alice/.DS_Store","alice/x.json","../out.wav"]}"#),
            ingestDraft("alice/y.json"),
        ])
        let claims = try await catalog.claim(workerID: "w", kinds: nil, limits: ["ingest": 4], leaseDuration: .seconds(60), now: at(0))
        #expect(claims.count == 2)
        let many = IngestCommit.Job(
            claim: claims[0],
            files: [
                .init(path: "alice/old.wav", action: .markGone), .init(path: "alice/never.wav", action: .markGone),
                .init(path: "alice/.DS_Store", action: .ignore(reason: "litter")),
                .init(path: "alice/x.json", action: .companion(of: ["alice/x.wav"])),
                .init(path: "../out.wav", action: .retryAlone(ingestDraft("../out.wav"))),
            ],
            followUps: [ingestDraft("alice/x.wav")], listsFiles: true)
        let one = IngestCommit.Job(claim: claims[1], files: [.init(path: "alice/y.json", action: .companion(of: []))], listsFiles: false)
        let ends = try await catalog.commitIngest(IngestCommit(jobs: [many, one], linking: nil), now: at(1))
        guard case .completed(let written) = ends.first, case .retried(let retried) = written.last else {
            Issue.record("expected the job of many written, got \(ends)")
            return
        }
        let result = try #require(try await catalog.job(id: claims[0].job.id).result)
        let entries = [
            #"{"gone":true,"path":"alice/old.wav","recording":\#(known.id)}"#, #"{"gone":true,"path":"alice/never.wav","recording":null}"#,
            #"{"ignored":"litter","path":"alice/.DS_Store"}"#, #"{"companionOf":["alice/x.wav"],"path":"alice/x.json"}"#,
            #"{"path":"../out.wav","retriedAs":\#(retried)}"#,
        ]
        #expect(result == #"{"files":["# + entries.joined(separator: ",") + "]}")
        #expect(try await catalog.job(id: claims[1].job.id).result == #"{"companionOf":[]}"#)
        #expect(try await catalog.recording(id: known.id, visibleTo: nil).status == .missing)
        let queued = try await catalog.jobs(state: .queued, kind: "ingest", afterID: nil, limit: 10)
        #expect(Set(queued.map(\.payload)) == [ingestDraft("../out.wav").payload, ingestDraft("alice/x.wav").payload])
    }
}
