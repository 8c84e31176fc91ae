import Foundation
import Logging
import StenoAPI
import StenoCatalog
import StenoCore
import StenoSQLite
import Testing

@testable import StenoService

/// The retention run removes exactly what its preview lists, with the files (or into the
/// archive), and never a held recording; holds are for admins.
@Suite("Retention: the nightly run, its preview and legal holds")
struct RetentionRunTests {
    let root = NSTemporaryDirectory() + "steno-retention-" + UUID().uuidString
    let now = Date()
    let context = JobContext(logger: Logger(label: "test"), workerID: "w")

    func caller(_ user: User?, admin: Bool = false) -> Caller {
        Caller(credentials: PeerCredentials(pid: 1, uid: 1000, gid: 1000), user: user, role: admin ? .admin : .member)
    }

    func call(_ user: User?, admin: Bool = false) -> RPCCall {
        RPCCall(caller: caller(user, admin: admin), logger: Logger(label: "test"), method: "test")
    }

    /// A recording made `daysAgo` days ago at `path`, its file (and a sidecar) in the inbox.
    func record(_ path: String, daysAgo: Double, owner: User, in catalog: SQLiteCatalog) async throws -> Int64 {
        let file = root + "/inbox/" + path
        try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data("bytes of \(path)".utf8).write(to: URL(fileURLWithPath: file))
        try Data("{\"title\": \"\(path)\"}".utf8).write(to: URL(fileURLWithPath: (file as NSString).deletingPathExtension + ".json"))
        let made = now.addingTimeInterval(-daysAgo * 86_400)
        return try await catalog.recordIngest(
            IngestRecord(
                path: path, size: 10, modified: made, contentHash: "hash of " + path,
                ownerID: owner.id, outcome: .ready(RecordingMetadata(format: "wav", codec: "pcm", duration: 60, recordedAt: made, title: path)))
        ).id
    }

    func settings(archive: String? = nil) -> RetentionSettings {
        var settings = RetentionSettings()
        settings.policy = RetentionPolicy(keepDays: 365, owners: ["bob": 30], folders: ["alice/legal/": 0])
        settings.archiveDirectory = archive
        return settings
    }

    @Test func theRunRemovesWhatThePreviewListedAndNothingHeld() async throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/inbox", withIntermediateDirectories: true)
        let catalog = try await SQLiteCatalog.open(path: root + "/catalog.sqlite")
        let alice = try await catalog.addUser(UserDraft(name: "alice"))
        let bob = try await catalog.addUser(UserDraft(name: "bob"))
        let oldAlice = try await record("alice/2024-review.wav", daysAgo: 400, owner: alice, in: catalog)
        let youngAlice = try await record("alice/last-week.wav", daysAgo: 7, owner: alice, in: catalog)
        let legal = try await record("alice/legal/deposition.wav", daysAgo: 4000, owner: alice, in: catalog)
        let oldBob = try await record("bob/standup.wav", daysAgo: 45, owner: bob, in: catalog)
        let heldBob = try await record("bob/incident.wav", daysAgo: 90, owner: bob, in: catalog)
        let methods = RetentionMethods(store: catalog, settings: settings(), schedule: try CronSchedule("45 3 * * *"), timeZone: .gmt)
        #expect(try await methods.hold(RecordingHoldParams(ids: [heldBob, 99_999], reason: "incident 7"), call: call(nil, admin: true))
            == RecordingHoldResult(held: [heldBob], unknown: [99_999]))

        let preview = try await methods.preview(for: caller(nil, admin: true), now: now)
        #expect(preview.recordings.map(\.id) == [oldAlice, oldBob])
        #expect(preview.recordings.map(\.rule) == ["keep_days = 365", "[retention.owners] bob = 30"])
        #expect(preview.held == 1 && preview.runsAt.map { $0 > now } == true)
        #expect(try await methods.preview(for: caller(bob), now: now).recordings.map(\.id) == [oldBob], "members see their own")

        let handler = RetentionJobHandler(store: catalog, settings: settings(), finisher: RecordingDeletionJobHandler(store: catalog, inbox: Inbox(root + "/inbox")))
        let run = RetentionRun(store: catalog, settings: settings())
        let result = try await run.delete(try await run.expired(now: preview.runsAt ?? now), now: now, finisher: handler.finisher, context: context)
        #expect(result == RetentionJob.Result(expired: 2, deleted: 2, files: 4, archivedTo: nil))
        #expect(try await catalog.recordings(RecordingQuery()).map(\.id).sorted() == [youngAlice, legal, heldBob].sorted())
        let left = try FileManager.default.subpathsOfDirectory(atPath: root + "/inbox").filter { $0.hasSuffix(".wav") }.sorted()
        #expect(left == ["alice/last-week.wav", "alice/legal/deposition.wav", "bob/incident.wav"])
        #expect(!FileManager.default.fileExists(atPath: root + "/inbox/bob/standup.json"), "its sidecar went with it")
        #expect(try await catalog.deletedContents(["hash of bob/standup.wav"]).isEmpty,
                "an expired recording's content is not remembered: a copy dropped again is as old, and goes at the next run")
        #expect(try await run.expired(now: now).isEmpty, "a second run finds nothing")
        let logged = try await catalog.accessLog(AccessLogQuery(actor: "retention"))
        #expect(logged.compactMap(\.recordingID).sorted() == [oldAlice, oldBob].sorted() && logged.allSatisfy { $0.action == .retention })
        #expect(logged.compactMap(\.owner).sorted() == ["alice", "bob"], "each entry names the owner the recording had")

        // A held recording cannot be deleted by hand either, until the hold is lifted.
        let recordings = RecordingMethods(store: catalog, queue: JobQueue(store: catalog), inbox: Inbox(root + "/inbox"))
        do {
            _ = try await recordings.delete(RecordingDeleteParams(ids: [heldBob]), call: call(bob))
            Issue.record("a held recording was deleted")
        } catch let error as RPCError {
            #expect(error.code == RPCError.failedPreconditionCode && error.message.contains("legal hold") && error.message.contains("incident 7"))
            #expect(error.message.contains("steno recordings unhold \(heldBob)"))
        }
        #expect(try await methods.unhold([heldBob, oldAlice], call: call(nil, admin: true)) == RecordingUnholdResult(released: [heldBob]))
        #expect(try await run.expired(now: now).map(\.recordingID) == [heldBob], "unheld, it falls under its rule again")
    }

    @Test func withAnArchiveTheFilesAreMovedThereNotRemoved() async throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/inbox", withIntermediateDirectories: true)
        let archive = root + "/archive"
        let catalog = try await SQLiteCatalog.open(path: root + "/catalog.sqlite")
        let bob = try await catalog.addUser(UserDraft(name: "bob"))
        let old = try await record("bob/standup.wav", daysAgo: 45, owner: bob, in: catalog)
        // An earlier run archived a file of the same name: it is kept, the new one numbered.
        try FileManager.default.createDirectory(atPath: archive + "/bob", withIntermediateDirectories: true)
        try Data("an older standup".utf8).write(to: URL(fileURLWithPath: archive + "/bob/standup.wav"))

        let run = RetentionRun(store: catalog, settings: settings(archive: archive))
        let finisher = RecordingDeletionJobHandler(store: catalog, inbox: Inbox(root + "/inbox"))
        let result = try await run.delete(try await run.expired(now: now), now: now, finisher: finisher, context: context)
        #expect(result == RetentionJob.Result(expired: 1, deleted: 1, files: 2, archivedTo: archive))
        await #expect(throws: StoreError.self) { try await catalog.recording(id: old, visibleTo: nil) }
        #expect(!FileManager.default.fileExists(atPath: root + "/inbox/bob/standup.wav"))
        #expect(try String(contentsOfFile: archive + "/bob/standup.wav", encoding: .utf8) == "an older standup")
        #expect(try String(contentsOfFile: archive + "/bob/standup-2.wav", encoding: .utf8) == "bytes of bob/standup.wav")
        #expect(FileManager.default.fileExists(atPath: archive + "/bob/standup.json"))
    }

    @Test func holdsAreForAdmins() throws {
        var table = RPCMethodTable()
        let methods = RetentionMethods(store: UnusedRetentionStore(), settings: RetentionSettings(), schedule: nil, timeZone: .gmt)
        methods.register(in: &table)
        let member = caller(User(id: 2, name: "bob", uids: [1000]))
        for method in [StenoMethods.recordingsHold.name, StenoMethods.recordingsUnhold.name, StenoMethods.recordingsHolds.name] {
            let entry = try #require(table[method])
            #expect(throws: RPCError.self, "\(method)") { try RPCDispatcher.authorize(member, for: entry.access, method: method) }
        }
        #expect(table[StenoMethods.retentionPreview.name]?.access == .user)
    }

    @Test func retentionSettingsAreReadAndChecked() throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        func load(_ toml: String) throws -> StenoConfiguration {
            let path = root + "/stenod.toml"
            try ("inbox = \"\(root)/inbox\"\n" + toml).write(toFile: path, atomically: true, encoding: .utf8)
            return try StenoConfiguration.load(overrides: .init(configFile: path), environment: [:], uid: 1000)
        }
        let configured = try load(
            """
            [retention]
            keep_days = 365
            archive_dir = "/srv/steno-archive/"
            expire_cron = "0 2 * * *"
            [retention.owners]
            Alice = 730
            [retention.folders]
            "legal" = 0
            """)
        #expect(configured.retention.policy == RetentionPolicy(keepDays: 365, owners: ["alice": 730], folders: ["legal/": 0]))
        #expect(configured.retention.archiveDirectory == "/srv/steno-archive" && configured.retention.expireCron == "0 2 * * *")
        let daemon = StenoDaemon(configuration: configured, environment: [:])
        let nightly = try #require(daemon.defaultSchedules.first { $0.kind == RetentionJob.name })
        #expect(nightly.maxAttempts == RetentionJob.maxAttempts)
        #expect(!StenoDaemon(configuration: try load("[retention.folders]\n\"legal/\" = 0\n"), environment: [:]).defaultSchedules
            .contains { $0.kind == RetentionJob.name }, "no run when every rule keeps forever")
        for bad in [
            "[retention]\nkeep_days = -1", "[retention]\nkeep_days = \"1y\"", "[retention]\narchive_dir = \"archive\"",
            "[retention]\narchive_dir = \"\(root)/inbox/archive\"", "[retention]\narchive_dir = \"\(root)\"",
            "[retention.owners]\n\"../x\" = 3", "[retention.folders]\n\"../x\" = 3", "[retention.folders]\n\"/etc\" = 3",
            "[retention]\nexpire_cron = \"nightly\"", "[retention]\nowners = 3",
        ] {
            #expect(throws: ConfigurationError.self, "\(bad)") { try load(bad + "\n") }
        }
    }
}

/// A store no test call reaches: the access checks come first.
private struct UnusedRetentionStore: RecordingDeletionStore, RetentionStore, AccessLogStore {
    struct Unused: Error {}
    func markForDeletion(_ request: DeletionRequest, job: JobDraft?) async throws -> MarkedDeletion { throw Unused() }
    func pendingDeletions(ids: [Int64]?, afterID: Int64, limit: Int) async throws -> [PendingDeletion] { throw Unused() }
    func finishDeletions(_ ids: [Int64]) async throws -> Int { throw Unused() }
    func missingRecordings(before cutoff: Date, limit: Int) async throws -> [Int64] { throw Unused() }
    func deletedContents(_ hashes: [String]) async throws -> [String: DeletedContent] { throw Unused() }
    func forgetDeletedContents(_ hashes: [String]) async throws -> [String] { throw Unused() }
    func retentionCandidates(agedBefore cutoff: Date, afterID: Int64, limit: Int) async throws -> [RetentionCandidate] { throw Unused() }
    func hold(_ ids: [Int64], by holder: String, reason: String?, now: Date) async throws -> [Int64] { throw Unused() }
    func releaseHolds(_ ids: [Int64]) async throws -> [Int64] { throw Unused() }
    func holds(ids: [Int64]?) async throws -> [RecordingHold] { throw Unused() }
    func logAccess(_ draft: AccessDraft) async throws { throw Unused() }
    func accessLog(_ query: AccessLogQuery) async throws -> [AccessEntry] { throw Unused() }
    func pruneAccessLog(before cutoff: Date) async throws -> Int { throw Unused() }
}
