import Foundation
import GRDB
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// A deletion of 1,000 recordings with their files, the daemon killed (SIGKILL) at random
/// instants 20 times: each time it is down, every file still in the inbox has its recording,
/// and no recording is new; after the last restart the job finishes, and a rescan catalogues
/// nothing again.
@Suite("Deleting through crashes", .blocksThreads, .serialized)
struct DeletionCrashEndToEndTests {
    static let recordings = 1_000
    static let kills = 20

    /// What the catalog holds while the daemon is down: recording ids with their paths, marks.
    struct Snapshot {
        var paths: [Int64: [String]] = [:]
        var marked: Set<Int64> = []
        var remembered = 0

        /// The files of `fileOf` (recording → its path, `alice/…`) still in `folder` whose
        /// recordings are gone: each one the watcher would catalogue anew.
        func filesWithoutRecording(_ fileOf: [Int64: String], in folder: String) throws -> [String] {
            let files = Set(try FileManager.default.contentsOfDirectory(atPath: folder).map { "alice/" + $0 })
            return fileOf.filter { files.contains($0.value) && paths[$0.key] == nil }.map(\.value).sorted()
        }

        /// Read from the catalog file of a daemon that is down.
        static func read(_ daemon: TestDaemon) throws -> Snapshot {
            var configuration = Configuration()
            configuration.readonly = true
            let database = try DatabaseQueue(path: daemon.dataDirectory + "/catalog.sqlite", configuration: configuration)
            return try database.read { db in
                var snapshot = Snapshot()
                for row in try Row.fetchAll(db, sql: "SELECT r.id, p.path FROM recordings r LEFT JOIN recording_paths p ON p.recording_id = r.id") {
                    let id: Int64 = row[0]
                    let path: String? = row[1]
                    snapshot.paths[id, default: []] += path.map { [$0] } ?? []
                }
                snapshot.marked = Set(try Int64.fetchAll(db, sql: "SELECT recording_id FROM recording_deletions"))
                snapshot.remembered = try Int.fetchOne(db, sql: "SELECT count(*) FROM deleted_contents") ?? 0
                return snapshot
            }
        }
    }

    @Test func aDeletionKilledAtRandomInstantsLeavesEachRecordingWholeOrGoneAndFinishes() throws {
        let daemon = try TestDaemon(config: VisibilityEndToEndTests.config)
        defer { daemon.shutdown() }
        #expect(try steno(daemon, ["users", "add", "alice"]).status == 0)
        let folder = daemon.inboxDirectory + "/alice"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for index in 0..<Self.recordings {
            try IngestionEndToEndTests.wav(seed: 10_000 + index).write(to: URL(fileURLWithPath: "\(folder)/r\(index).wav"))
        }
        let ingested = try runCommand(try TestDaemon.executable(named: "steno"), ["--socket", daemon.socketPath, "ingest", folder, "--wait"], timeout: 600)
        try #require(ingested.status == 0, "\(ingested.stderr)")
        let original = try IngestionEndToEndTests.recordings(daemon)
        try #require(original.count == Self.recordings)
        let ids = Set(original.map(\.id))
        let fileOf = Dictionary(uniqueKeysWithValues: original.compactMap { recording in recording.paths.first.map { (recording.id, $0.path) } })

        let marked = try daemon.client().call(StenoMethods.recordingsDelete, RecordingDeleteParams(ids: ids.sorted(), files: true))
        #expect(marked.recordings.count == Self.recordings)
        // How many recordings each kill found left: the kills must land inside the run.
        var left: [Int] = []
        var filesLeft: [Int] = []
        // Uninterrupted, the job takes about two seconds here: the watcher and the ingest of
        // the vanished paths share the two cores.
        try CrashKills.kill(daemon, during: marked.job, kills: Self.kills, maxDelay: { 250_000 }) { kill in
            let down = try Snapshot.read(daemon)
            left.append(down.paths.count)
            filesLeft.append(try FileManager.default.contentsOfDirectory(atPath: folder).count)
            #expect(Set(down.paths.keys).isSubset(of: ids), "kill \(kill): a recording that was not there before")
            #expect(down.marked == Set(down.paths.keys), "kill \(kill): every recording left is still marked")
            #expect(down.remembered == Self.recordings, "kill \(kill): every deleted content is remembered")
            let orphans = try down.filesWithoutRecording(fileOf, in: folder)
            #expect(orphans.isEmpty, "kill \(kill): files in the inbox whose recordings are gone: \(orphans.prefix(5))")
        }
        let job = try poll(
            timeout: 120, { try daemon.client().call(StenoMethods.jobsGet, JobIDParams(id: marked.job)) }, until: { !$0.state.isLive })
        #expect(job.state == .succeeded, "\(job)\n\(daemon.log.suffix(2000))")
        #expect(left.contains { $0 > 0 && $0 < Self.recordings }, "no kill landed inside the deletion: recordings left at each kill \(left)")
        print("recordings left at each kill: \(left); files: \(filesLeft)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
        #expect(try IngestionEndToEndTests.recordings(daemon).isEmpty)

        // A restart rescans the inbox: nothing comes back.
        #expect(try CrashKills.restartAndAwaitRescan(daemon), "the restarted watcher never rescanned:\n\(daemon.log.suffix(2000))")
        #expect(try IngestionEndToEndTests.recordings(daemon).isEmpty)
        #expect(try snapshotAfterStop(daemon).paths.isEmpty)
    }

    private func snapshotAfterStop(_ daemon: TestDaemon) throws -> Snapshot {
        daemon.stop()
        return try Snapshot.read(daemon)
    }
}
