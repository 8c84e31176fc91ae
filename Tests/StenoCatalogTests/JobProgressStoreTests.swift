import Foundation
import StenoCore
import Testing

@testable import StenoCatalog
@testable import StenoSQLite

/// A running job's progress text, on every backend: set under its claim's lease only, read
/// back with the job, and cleared when an attempt is claimed again.
@Suite("Job progress in the store")
struct JobProgressStoreTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    func at(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }

    func claim(_ catalog: any JobQueueStore, at seconds: Double, worker: String, limit: Int = 1) async throws -> [ClaimedJob] {
        try await catalog.claim(workerID: worker, kinds: nil, limits: ["k": limit], leaseDuration: .seconds(10), now: at(seconds))
    }

    @Test(arguments: StoreBackend.available) func progressIsSetUnderTheLeaseAndClearedByTheNextClaim(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
        let first = try await catalog.enqueue(JobDraft(kind: "k")).job
        let second = try await catalog.enqueue(JobDraft(kind: "k")).job
        #expect(first.progress == nil)
        let claims = try await claim(catalog, at: 0, worker: "w1", limit: 2)
        try #require(claims.count == 2)

        // One call for every job of a run.
        #expect(try await catalog.setProgress("fetching calendar history: 1 of 4 spans", of: claims, now: at(1)) == [first.id, second.id])
        #expect(try await catalog.job(id: first.id).progress == "fetching calendar history: 1 of 4 spans")
        #expect(try await catalog.jobs(state: .running, kind: "k", afterID: nil, limit: 10).map(\.progress)
            == ["fetching calendar history: 1 of 4 spans", "fetching calendar history: 1 of 4 spans"])

        // A stale claim writes nothing; the next claim starts without the old text.
        #expect(try await catalog.requeueExpiredLeases(now: at(11)) == 2)
        #expect(try await catalog.setProgress("late", of: claims, now: at(12)).isEmpty)
        let again = try await claim(catalog, at: 12, worker: "w2")
        #expect(again.first?.job.progress == nil)
        #expect(try await catalog.job(id: first.id).progress == nil)
        #expect(try await catalog.setProgress("linking 2 recordings", of: again, now: at(13)) == [first.id])

        // A finished job keeps its last text; its claim sets no more.
        #expect(try await catalog.complete(again.map { JobCompletion(claim: $0, result: nil) }, now: at(14)) == [true])
        #expect(try await catalog.setProgress("after the end", of: again, now: at(15)).isEmpty)
        #expect(try await catalog.job(id: first.id).progress == "linking 2 recordings")
    }
}
