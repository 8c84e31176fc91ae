import Foundation
import Logging
import StenoAPI
import StenoCatalog
import StenoCore
import StenoSQLite
import Testing

@testable import StenoService

/// `recordings.delete` decides who may delete what; its job removes files of the inbox and
/// nothing outside it.
@Suite("Deleting recordings: the rules and the files")
struct RecordingDeletionMethodTests {
    let root = NSTemporaryDirectory() + "steno-deletion-" + UUID().uuidString

    func call(_ user: User?, admin: Bool = false) -> RPCCall {
        RPCCall(
            caller: Caller(credentials: PeerCredentials(pid: 1, uid: 1000, gid: 1000), user: user, role: admin ? .admin : .member),
            logger: Logger(label: "test"), method: StenoMethods.recordingsDelete.name)
    }

    func record(_ path: String, hash: String?, owner: Int64, in catalog: SQLiteCatalog) async throws -> Int64 {
        try Data("bytes of \(path)".utf8).write(to: URL(fileURLWithPath: root + "/inbox/" + path))
        return try await catalog.recordIngest(
            IngestRecord(
                path: path, size: 10, modified: Date(), contentHash: hash, ownerID: owner,
                outcome: hash == nil ? .failed(reason: "Permission denied") : .ready(RecordingMetadata(format: "wav", codec: "pcm", duration: 1)))
        ).id
    }

    @Test func membersDeleteTheirOwnAndAnUnhashableRecordingOnlyWithItsFile() async throws {
        try FileManager.default.createDirectory(atPath: root + "/inbox/alice", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let catalog = try await SQLiteCatalog.open(path: root + "/catalog.sqlite")
        let alice = try await catalog.addUser(UserDraft(name: "alice"))
        let bob = try await catalog.addUser(UserDraft(name: "bob"))
        let inbox = Inbox(root + "/inbox")
        let methods = RecordingMethods(store: catalog, queue: JobQueue(store: catalog, defaultMaxAttempts: 3), inbox: inbox)
        let ready = try await record("alice/standup.wav", hash: String(repeating: "a", count: 64), owner: alice.id, in: catalog)
        let unreadable = try await record("alice/broken.m4a", hash: nil, owner: alice.id, in: catalog)

        do {
            _ = try await methods.delete(RecordingDeleteParams(ids: [ready]), call: call(bob))
            Issue.record("bob deleted alice's recording")
        } catch let error as RPCError {
            #expect(error.code == RPCError.notPermittedCode && error.message.contains("is not yours"), "\(error)")
        }
        do {
            _ = try await methods.delete(RecordingDeleteParams(ids: [ready, unreadable]), call: call(alice))
            Issue.record("an unhashable recording was deleted while its file stays")
        } catch let error as RPCError {
            #expect(error.code == RPCError.failedPreconditionCode && error.message.contains("--file"), "\(error)")
        }
        #expect(try await catalog.pendingDeletions(ids: nil, afterID: 0, limit: 10).isEmpty, "none is marked when one may not go")

        let marked = try await methods.delete(RecordingDeleteParams(ids: [ready, unreadable], files: true), call: call(alice))
        #expect(marked.recordings == [ready, unreadable].sorted())
        let job = try await catalog.job(id: marked.job)
        #expect(job.kind == RecordingDeletionJob.name && job.payload.contains("\"requestedBy\":\"alice\""), "\(job.payload)")
        let handler = RecordingDeletionJobHandler(store: catalog, inbox: inbox)
        let result = try await handler.finish(marked.recordings, context: JobContext(logger: Logger(label: "test"), workerID: "w"))
        #expect(result == RecordingDeletionJob.Result(deleted: 2, files: 2))
        #expect(try FileManager.default.contentsOfDirectory(atPath: root + "/inbox/alice").isEmpty)
        #expect(try await catalog.recordings(RecordingQuery()).isEmpty)
        // Done is done: running the job again finds nothing to do.
        #expect(try await handler.finish(marked.recordings, context: JobContext(logger: Logger(label: "test"), workerID: "w")).deleted == 0)
    }

    @Test func aFileOutsideTheInboxIsNeverRemoved() throws {
        let outside = root + "/outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/inbox/alice", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        try Data("keep".utf8).write(to: URL(fileURLWithPath: outside + "/x.wav"))
        try FileManager.default.createSymbolicLink(atPath: root + "/inbox/alice/elsewhere", withDestinationPath: outside)
        try FileManager.default.createSymbolicLink(atPath: root + "/inbox/alice/pointer.wav", withDestinationPath: outside + "/x.wav")
        let inbox = Inbox(root + "/inbox")

        #expect(try InboxFileRemoval.remove("alice/elsewhere/x.wav", in: inbox) == .outside("its folder leads out of the inbox, to \(Inbox.resolved(outside) ?? outside)"))
        #expect(try InboxFileRemoval.remove("alice/../../outside/x.wav", in: inbox) == .outside("alice/../../outside/x.wav is not a path inside the inbox"))
        // A symlink in the inbox is removed itself, never what it points to.
        #expect(try InboxFileRemoval.remove("alice/pointer.wav", in: inbox) == .removed)
        #expect(try InboxFileRemoval.remove("alice/pointer.wav", in: inbox) == .absent)
        #expect(FileManager.default.fileExists(atPath: outside + "/x.wav"))
        #expect(try InboxFileRemoval.remove("nobody/none.wav", in: inbox) == .absent)
    }
}
