import Foundation
import StenoCore
import Testing

@testable import StenoCatalog

/// What the retention run reads, and the legal holds that exempt recordings from every
/// removal, on every backend.
@Suite("Retention: candidates and legal holds")
struct RetentionStoreTests {
    let job = JobDraft(kind: "recordings.delete", payload: "{}")
    let now = MeetingFixture.at(minutes: 5000)

    @Test(arguments: StoreBackend.available)
    func candidatesAreOldEnoughAndNeitherHeldNorMarked(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let store = opened.store
        let f = try await MeetingFixture.make(store)
        let cutoff = MeetingFixture.at(minutes: 300)
        let all = try await store.retentionCandidates(agedBefore: cutoff, afterID: 0, limit: 10)
        #expect(all.contains { $0.recordingID == f.aliceRecording } && all.contains { $0.recordingID == f.daveRecording })
        #expect(!all.contains { $0.recordingID == f.bobRecording }, "made after the cutoff")
        #expect(all.map(\.recordingID) == all.map(\.recordingID).sorted())
        #expect(
            all.first { $0.recordingID == f.aliceRecording }
                == RetentionCandidate(
                    recordingID: f.aliceRecording, title: "Überprüfung notes", ownerName: "alice", agedFrom: MeetingFixture.at(minutes: 2),
                    paths: ["alice/q1.wav"]))
        let first = try await store.retentionCandidates(agedBefore: cutoff, afterID: 0, limit: 1)
        #expect(first.map(\.recordingID) == [all[0].recordingID])
        #expect(try await store.retentionCandidates(agedBefore: cutoff, afterID: all[0].recordingID, limit: 10).map(\.recordingID)
            == Array(all.dropFirst()).map(\.recordingID))

        #expect(try await store.hold([f.aliceRecording, 987_654], by: "ada", reason: "case 118", now: now) == [f.aliceRecording])
        #expect(try await store.hold([f.aliceRecording], by: "bea", reason: nil, now: MeetingFixture.at(minutes: 6000)) == [f.aliceRecording])
        #expect(try await store.holds(ids: nil) == [RecordingHold(recordingID: f.aliceRecording, heldAt: now, heldBy: "ada", reason: "case 118")],
                "a second hold keeps the first as it was")
        #expect(try await store.holds(ids: [f.bobRecording]).isEmpty)
        let marked = try await store.markForDeletion(
            DeletionRequest(recordingIDs: [f.aliceRecording, f.daveRecording], requestedBy: "ada", withFiles: true, now: now), job: nil)
        #expect(marked == MarkedDeletion(recordingIDs: [f.daveRecording], job: nil), "a held recording is never marked; no job without a draft")
        let after = try await store.retentionCandidates(agedBefore: cutoff, afterID: 0, limit: 10).map(\.recordingID)
        #expect(!after.contains(f.aliceRecording) && !after.contains(f.daveRecording), "neither the held nor the marked")
        _ = try await store.markPathGone("alice/q1.wav", now: MeetingFixture.at(minutes: 100))
        #expect(try await store.missingRecordings(before: now, limit: 10).isEmpty, "a held recording is never purged as missing")

        #expect(try await store.releaseHolds([f.aliceRecording, f.bobRecording]) == [f.aliceRecording])
        #expect(try await store.holds(ids: nil).isEmpty)
        #expect(try await store.missingRecordings(before: now, limit: 10) == [f.aliceRecording])
    }

    @Test(arguments: StoreBackend.available)
    func theArchiveFolderIsKeptWithTheMark(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let store = opened.store
        let f = try await MeetingFixture.make(store)
        _ = try await store.markForDeletion(
            DeletionRequest(recordingIDs: [f.bobRecording], requestedBy: "retention", withFiles: true, archiveDirectory: "/srv/steno-archive", now: now),
            job: job)
        #expect(
            try await store.pendingDeletions(ids: nil, afterID: 0, limit: 10)
                == [PendingDeletion(recordingID: f.bobRecording, withFiles: true, archiveDirectory: "/srv/steno-archive", paths: ["bob/one.wav"])])
    }
}
