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

/// Recordings whose files are gone, purged once missing long enough, by command or nightly.
@Suite("Purging missing recordings")
struct MissingRecordingPurgeTests {
    let root = NSTemporaryDirectory() + "steno-purge-" + UUID().uuidString
    let t0 = Date(timeIntervalSince1970: 1_790_000_000)

    @Test func recordingsMissingLongerThanTheDaysAreMarkedAndDeleted() async throws {
        try FileManager.default.createDirectory(atPath: root + "/inbox", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let catalog = try await SQLiteCatalog.open(path: root + "/catalog.sqlite")
        func ingest(_ path: String) async throws -> Int64 {
            try await catalog.recordIngest(
                IngestRecord(
                    path: path, size: 1, modified: t0, contentHash: path, ownerID: nil,
                    outcome: .ready(RecordingMetadata(format: "wav", codec: "pcm", duration: 1)), now: t0)
            ).id
        }
        let old = try await ingest("old.wav")
        let recent = try await ingest("recent.wav")
        let present = try await ingest("present.wav")
        _ = try await catalog.markPathGone("old.wav", now: t0)
        _ = try await catalog.markPathGone("recent.wav", now: t0.addingTimeInterval(20 * 86_400))
        let now = t0.addingTimeInterval(40 * 86_400)
        let purge = MissingRecordingPurge(store: catalog)
        #expect(try await purge.candidates(olderThanDays: 30, now: now, limit: 100) == [old])
        #expect(try await purge.candidates(olderThanDays: 10, now: now, limit: 100) == [old, recent])

        let marked = try await purge.mark(olderThanDays: 30, requestedBy: "retention", now: now)
        #expect(marked.recordings == [old] && marked.jobs.count == 1)
        #expect(try await purge.candidates(olderThanDays: 30, now: now, limit: 100).isEmpty, "a marked recording is not found again")
        #expect(try await catalog.job(id: marked.jobs[0]).kind == RecordingDeletionJob.name)
        _ = try await RecordingDeletionJobHandler(store: catalog, inbox: Inbox(root + "/inbox"))
            .finish(nil, context: JobContext(logger: Logger(label: "test"), workerID: "w"))
        #expect(try await catalog.recordings(RecordingQuery()).map(\.id).sorted() == [recent, present].sorted())
        #expect(try await catalog.deletedContents(["old.wav"]).keys.sorted() == ["old.wav"], "its content is remembered")
    }

    @Test func retentionSettingsAreReadAndCheckedAndScheduleTheNightlyPurge() throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        func load(_ toml: String) throws -> StenoConfiguration {
            let path = root + "/stenod.toml"
            try toml.write(toFile: path, atomically: true, encoding: .utf8)
            return try StenoConfiguration.load(overrides: .init(configFile: path), environment: [:], uid: 1000)
        }
        #expect(try load("").retention.purgeMissingAfterDays == nil)
        let configured = try load("[retention]\npurge_missing_after_days = 30\npurge_cron = \"15 4 * * *\"\n")
        #expect(configured.retention.purgeMissingAfterDays == 30 && configured.retention.purgeCron == "15 4 * * *")
        for bad in ["purge_missing_after_days = 0", "purge_missing_after_days = \"30d\"", "purge_cron = \"at night\"", "keep_weeks = 30"] {
            #expect(throws: ConfigurationError.self, "\(bad)") { try load("[retention]\n\(bad)\n") }
        }
        let daemon = StenoDaemon(configuration: configured, environment: [:])
        let nightly = try #require(daemon.defaultSchedules.first { $0.kind == PurgeMissingJob.name })
        #expect(nightly.payload == #"{"olderThanDays":30}"#)
        #expect(!StenoDaemon(configuration: try load(""), environment: [:]).defaultSchedules.contains { $0.kind == PurgeMissingJob.name })
    }
}
