import Foundation
import StenoCore
import Testing

@testable import StenoCatalog

/// Deleting recordings on every backend: marked with the job that finishes them, then gone
/// with everything that hangs on them, their content remembered until forgotten.
@Suite("Deleting recordings")
struct RecordingDeletionStoreTests {
    let job = JobDraft(kind: "recordings.delete", payload: "{}")
    let now = MeetingFixture.at(minutes: 5000)

    /// How many rows of each table still name recording `id` (the search index read in its own
    /// table, not through a search).
    func traces(of id: Int64, title: String, in opened: OpenedCatalog) async throws -> [String: String?] {
        var counts: [String: String?] = [:]
        for table in ["recordings WHERE id", "recording_paths WHERE recording_id", "links WHERE recording_id",
                      "link_attendees WHERE recording_id", "link_history WHERE recording_id", "recording_deletions WHERE recording_id"] {
            counts[String(table.prefix { $0 != " " })] = try await opened.column("SELECT CAST(count(*) AS TEXT) FROM \(table) = \(id)").first ?? nil
        }
        counts["recording_search"] = try await opened.column(
            "SELECT CAST(count(*) AS TEXT) FROM recording_search WHERE title = '\(title)' OR transcript LIKE '%Zürich office%'").first ?? nil
        return counts
    }

    @Test(arguments: StoreBackend.available)
    func aDeletedRecordingLeavesNoRowAndNoSearchEntry(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let store = opened.store
        let f = try await MeetingFixture.make(store)
        try await f.linkAll()
        let id = f.aliceRecording
        let before = try await traces(of: id, title: "Überprüfung notes", in: opened)
        #expect(try await store.search("Zürich", visibleTo: nil, offset: 0, limit: 10).contains { $0.kind == "recording" && $0.id == id })
        #expect(before["recordings"] == "1" && before["links"] == "1" && before["recording_search"] == "1")
        #expect(before["link_attendees"] != "0" && before["link_history"] != "0")

        let marked = try await store.markForDeletion(
            DeletionRequest(recordingIDs: [id, 987_654], requestedBy: "alice", withFiles: true, now: now), job: job)
        #expect(marked.recordingIDs == [id], "an id that does not exist is not marked")
        let queued = try #require(marked.job)
        #expect(try await store.job(id: queued.id).kind == "recordings.delete", "the job is queued with the marks")
        let pending = try await store.pendingDeletions(ids: nil, afterID: 0, limit: 10)
        #expect(pending == [PendingDeletion(recordingID: id, withFiles: true, paths: ["alice/q1.wav"])])
        #expect(try await store.pendingDeletions(ids: [f.bobRecording], afterID: 0, limit: 10).isEmpty)

        #expect(try await store.finishDeletions([id, f.bobRecording]) == 1, "only a marked recording goes")
        let after = try await traces(of: id, title: "Überprüfung notes", in: opened)
        #expect(after.values.allSatisfy { $0 == "0" }, "\(after)")
        await #expect(throws: StoreError.self) { try await store.recording(id: id, visibleTo: nil) }
        #expect(try await store.search("Zürich", visibleTo: nil, offset: 0, limit: 10).filter { $0.kind == "recording" }.isEmpty)
        #expect(try await store.recording(id: f.bobRecording, visibleTo: nil).id == f.bobRecording)
        #expect(try await store.pendingDeletions(ids: nil, afterID: 0, limit: 10).isEmpty)
        #expect(try await store.finishDeletions([id]) == 0, "finishing again is harmless")
    }

    @Test(arguments: StoreBackend.available)
    func aSecondMarkKeepsTheFirstAndForgettingContentIsOptional(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let store = opened.store
        let f = try await MeetingFixture.make(store)
        _ = try await store.markForDeletion(
            DeletionRequest(recordingIDs: [f.bobRecording], requestedBy: "bob", withFiles: false, remembersContent: false, now: now), job: job)
        _ = try await store.markForDeletion(
            DeletionRequest(recordingIDs: [f.bobRecording, f.daveRecording], requestedBy: "ada", withFiles: true, now: now), job: job)
        let pending = try await store.pendingDeletions(ids: nil, afterID: 0, limit: 10)
        #expect(pending.map(\.recordingID) == [f.bobRecording, f.daveRecording].sorted())
        #expect(pending.first { $0.recordingID == f.bobRecording }?.withFiles == false, "the first mark is kept as it was")
        #expect(try await store.pendingDeletions(ids: nil, afterID: pending[0].recordingID, limit: 10).map(\.recordingID) == [pending[1].recordingID])
        // The second request remembered both contents (bob's first one had not).
        let remembered = try await store.deletedContents(["bob/one.wav", "dave/focus.wav", "alice/q1.wav"])
        #expect(Set(remembered.keys) == ["bob/one.wav", "dave/focus.wav"])
        #expect(remembered["dave/focus.wav"] == DeletedContent(contentHash: "dave/focus.wav", deletedAt: now, deletedBy: "ada"))
        #expect(try await store.markForDeletion(
            DeletionRequest(recordingIDs: [55_555], requestedBy: "ada", withFiles: false, now: now), job: job) == MarkedDeletion(recordingIDs: [], job: nil))
    }

    @Test(arguments: StoreBackend.available)
    func deletedContentIsIgnoredByIngestUntilForgotten(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let store = opened.store
        let f = try await MeetingFixture.make(store)
        _ = try await store.markForDeletion(DeletionRequest(recordingIDs: [f.bobRecording], requestedBy: "bob", withFiles: false, now: now), job: job)
        #expect(try await store.finishDeletions([f.bobRecording]) == 1)

        func ingestAgain() async throws -> IngestCommit.Written? {
            _ = try await store.enqueue(JobDraft(kind: "ingest", payload: #"{"path":"bob/one.wav"}"#))
            let claim = try #require(try await store.claim(workerID: "w", kinds: ["ingest"], limits: [:], leaseDuration: .seconds(60), now: Date()).first)
            let record = IngestRecord(
                path: "bob/one.wav", size: 100, modified: MeetingFixture.t0, contentHash: "bob/one.wav", ownerID: f.bob,
                outcome: .ready(RecordingMetadata(format: "wav", codec: "pcm_s16le", duration: 1800, title: "Bob recording")))
            let ends = try await store.commitIngest(
                IngestCommit(jobs: [.init(claim: claim, files: [.init(path: record.path, action: .record(record))], listsFiles: false)], linking: nil),
                now: Date())
            guard case .completed(let written)? = ends.first else { return nil }
            return written.first
        }
        guard case .ignored(let reason)? = try await ingestAgain() else {
            Issue.record("a deleted recording's content was catalogued again")
            return
        }
        #expect(reason.contains("deleted from the catalog") && reason.contains("by bob") && reason.contains("forget-content bob/one.wav"))
        #expect(try await store.recordings(RecordingQuery(ownerID: f.bob)).isEmpty)

        #expect(try await store.forgetDeletedContents(["bob/one.wav", "never"]) == ["bob/one.wav"])
        guard case .recorded(let recording)? = try await ingestAgain() else {
            Issue.record("forgotten content was not catalogued")
            return
        }
        #expect(recording.paths.map(\.path) == ["bob/one.wav"] && recording.id != f.bobRecording)
    }

    @Test(arguments: StoreBackend.available)
    func missingRecordingsAreListedByHowLongTheyHaveBeenMissing(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let store = opened.store
        let f = try await MeetingFixture.make(store)
        _ = try await store.markPathGone("bob/one.wav", now: MeetingFixture.at(minutes: 100))
        _ = try await store.markPathGone("dave/focus.wav", now: MeetingFixture.at(minutes: 200))
        #expect(try await store.missingRecordings(before: MeetingFixture.at(minutes: 150), limit: 10) == [f.bobRecording])
        let both = try await store.missingRecordings(before: MeetingFixture.at(minutes: 300), limit: 10)
        #expect(both == [f.bobRecording, f.daveRecording].sorted())
        #expect(try await store.missingRecordings(before: MeetingFixture.at(minutes: 300), limit: 1) == [both[0]])
        _ = try await store.markForDeletion(DeletionRequest(recordingIDs: [f.bobRecording], requestedBy: "ada", withFiles: false, now: now), job: job)
        #expect(try await store.missingRecordings(before: MeetingFixture.at(minutes: 300), limit: 10) == [f.daveRecording], "a marked one is not listed")
    }
}
