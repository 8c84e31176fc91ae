import Foundation
import StenoCore
import Testing

@testable import StenoCatalog

/// The access log on every backend: entries name the recording and its owner then, outlive
/// the recording, filter and page newest first, and are pruned by age.
@Suite("Access log")
struct AccessLogStoreTests {
    @Test(arguments: StoreBackend.available)
    func entriesKeepTheOwnerOutliveTheRecordingAndFilter(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let store = opened.store
        let f = try await MeetingFixture.make(store)
        let t = MeetingFixture.t0
        try await store.logAccess(AccessDraft(action: .open, recordingIDs: [f.aliceRecording], actor: "bob", uid: 1001, at: t))
        try await store.logAccess(
            AccessDraft(action: .delete, recordingIDs: [f.bobRecording, f.daveRecording], actor: "ada", uid: 0, detail: "with files", at: t.addingTimeInterval(60)))
        try await store.logAccess(AccessDraft(action: .forgetContent, recordingIDs: nil, actor: "ada", uid: 0, detail: "abc123", at: t.addingTimeInterval(120)))
        try await store.logAccess(AccessDraft(action: .hold, recordingIDs: [], actor: "ada", uid: 0, at: t))
        _ = try await store.markForDeletion(DeletionRequest(recordingIDs: [f.bobRecording], requestedBy: "ada", withFiles: false, now: t), job: nil)
        #expect(try await store.finishDeletions([f.bobRecording]) == 1)

        let all = try await store.accessLog(AccessLogQuery())
        #expect(all.map(\.action) == [.forgetContent, .delete, .delete, .open], "newest first; an empty set logs nothing")
        #expect(all.map(\.id) == all.map(\.id).sorted(by: >))
        let bobs = try #require(all.first { $0.recordingID == f.bobRecording })
        #expect(bobs.owner == "bob" && bobs.actor == "ada" && bobs.uid == 0 && bobs.detail == "with files", "the entry outlives the recording")
        #expect(all.first?.recordingID == nil && all.first?.detail == "abc123")
        #expect(try await store.accessLog(AccessLogQuery(recordingID: f.aliceRecording)).map(\.actor) == ["bob"])
        #expect(try await store.accessLog(AccessLogQuery(actor: "ada")).count == 3)
        #expect(try await store.accessLog(AccessLogQuery(owner: "dave")).map(\.action) == [.delete])
        #expect(try await store.accessLog(AccessLogQuery(since: t.addingTimeInterval(60))).count == 3)
        let first = try await store.accessLog(AccessLogQuery(limit: 2))
        #expect(try await store.accessLog(AccessLogQuery(beforeID: first[1].id, limit: 10)).map(\.id) == all.dropFirst(2).map(\.id))

        #expect(try await store.pruneAccessLog(before: t.addingTimeInterval(30)) == 1)
        #expect(try await store.accessLog(AccessLogQuery()).count == 3)
    }

    @Test(arguments: StoreBackend.available)
    func aDeletionIsLoggedInTheTransactionThatMarksIt(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let store = opened.store
        let f = try await MeetingFixture.make(store)
        _ = try await store.hold([f.aliceRecording], by: "ada", reason: nil, now: MeetingFixture.t0)
        let marked = try await store.markForDeletion(
            DeletionRequest(
                recordingIDs: [f.aliceRecording, f.bobRecording, 987_654], requestedBy: "retention", withFiles: true,
                access: .init(.retention, uid: nil), now: MeetingFixture.t0),
            job: nil)
        #expect(marked.recordingIDs == [f.bobRecording])
        let logged = try await store.accessLog(AccessLogQuery())
        #expect(logged.map(\.recordingID) == [f.bobRecording], "only what was marked: not the held, not the unknown")
        #expect(logged.first?.action == .retention && logged.first?.actor == "retention" && logged.first?.owner == "bob" && logged.first?.uid == nil)
    }
}
