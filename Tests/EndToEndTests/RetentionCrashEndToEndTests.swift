import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// A retention run over 8,200 recordings (eight batches), 8,000 of them older than `keep_days`, the daemon killed
/// (SIGKILL) at random instants 20 times: each time it is down, every file still in the inbox
/// has its recording and no recording is new; after the last restart the run finishes, the
/// 200 young recordings stay, and a rescan catalogues nothing again.
@Suite("Retention through crashes", .blocksThreads, .serialized)
struct RetentionCrashEndToEndTests {
    static let recordings = 8_200
    static let expiring = 8_000
    static let kills = 20
    static let config = """
        [watcher]
        settle_seconds = 0.2

        [retention]
        keep_days = 30
        """

    @Test func aRunKilledAtRandomInstantsLeavesEachRecordingWholeOrGoneAndFinishes() throws {
        let daemon = try TestDaemon(config: Self.config)
        defer { daemon.shutdown() }
        #expect(try steno(daemon, ["users", "add", "alice"]).status == 0)
        let folder = daemon.inboxDirectory + "/alice"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let longAgo = Date().addingTimeInterval(-400 * 86_400)
        for index in 0..<Self.recordings {
            let path = "\(folder)/r\(index).wav"
            try IngestionEndToEndTests.wav(seed: 20_000 + index).write(to: URL(fileURLWithPath: path))
            // Made when the file was last written, for want of a better date: 400 days ago.
            if index < Self.expiring { try FileManager.default.setAttributes([.modificationDate: longAgo], ofItemAtPath: path) }
        }
        let ingested = try runCommand(try TestDaemon.executable(named: "steno"), ["--socket", daemon.socketPath, "ingest", folder, "--wait"], timeout: 600)
        try #require(ingested.status == 0, "\(ingested.stderr)")
        let original = try IngestionEndToEndTests.recordings(daemon)
        try #require(original.count == Self.recordings)
        let ids = Set(original.map(\.id))
        let old = Set(original.filter { ($0.recordedAt ?? Date()) < Date().addingTimeInterval(-30 * 86_400) }.map(\.id))
        try #require(old.count == Self.expiring, "the old files were not catalogued as old")
        let fileOf = Dictionary(uniqueKeysWithValues: original.compactMap { recording in recording.paths.first.map { (recording.id, $0.path) } })

        let preview = try daemon.client().call(StenoMethods.retentionPreview)
        #expect(Set(preview.recordings.map(\.id)) == old && preview.rules == ["keep_days = 30"])
        let run = try daemon.client().call(
            StenoMethods.jobsEnqueue, JobEnqueueParams(kind: "retention.run", maxAttempts: 100)).job
        var left: [Int] = []
        // A kill within `delay` of the run starting again: shorter while kills find progress,
        // longer while they do not (a loaded machine plans and deletes more slowly), so that
        // the kills land all along the run.
        var delay: UInt32 = 40_000
        let maxDelay = {
            if left.count >= 2 {
                delay = left[left.count - 1] < left[left.count - 2] ? max(delay / 2, 20_000) : min(delay * 3 / 2, 1_000_000)
            }
            return delay
        }
        try CrashKills.kill(daemon, during: run.id, kills: Self.kills, maxDelay: maxDelay) { kill in
            let down = try DeletionCrashEndToEndTests.Snapshot.read(daemon)
            left.append(down.paths.count)
            #expect(Set(down.paths.keys).isSubset(of: ids), "kill \(kill): a recording that was not there before")
            #expect(ids.subtracting(old).isSubset(of: Set(down.paths.keys)), "kill \(kill): a young recording went")
            #expect(down.marked.isSubset(of: old), "kill \(kill): a young recording was marked")
            let orphans = try down.filesWithoutRecording(fileOf, in: folder)
            #expect(orphans.isEmpty, "kill \(kill): files in the inbox whose recordings are gone: \(orphans.prefix(5))")
        }
        let job = try poll(timeout: 120, { try daemon.client().call(StenoMethods.jobsGet, JobIDParams(id: run.id)) }, until: { !$0.state.isLive })
        #expect(job.state == .succeeded, "\(job)\n\(daemon.log.suffix(2000))")
        // Killed before the run ended: expired recordings were left.
        let inside = left.filter { $0 > Self.recordings - Self.expiring }.count
        #expect(inside >= Self.kills / 2, "only \(inside) kills landed inside the run (recordings left at each: \(left))")
        #expect(left.contains { $0 > Self.recordings - Self.expiring && $0 < Self.recordings }, "no kill landed after a first batch went: \(left)")
        print("recordings left at each kill: \(left)")
        let finished = try poll(timeout: 60, { try IngestionEndToEndTests.recordings(daemon) }, until: { $0.count == Self.recordings - Self.expiring })
        #expect(Set(finished.map(\.id)) == ids.subtracting(old))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).count == Self.recordings - Self.expiring)
        #expect(try daemon.client().call(StenoMethods.retentionPreview).recordings.isEmpty)

        // A restart rescans the inbox: nothing comes back, nothing new appears.
        #expect(try CrashKills.restartAndAwaitRescan(daemon), "the restarted watcher never rescanned:\n\(daemon.log.suffix(2000))")
        #expect(Set(try IngestionEndToEndTests.recordings(daemon).map(\.id)) == ids.subtracting(old))
    }
}
