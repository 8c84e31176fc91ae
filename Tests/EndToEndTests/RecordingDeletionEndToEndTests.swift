#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// Deleting recordings against a real stenod, each person as their own uid: bob may see
/// alice's recording of their meeting but not delete it (exit 5), alice deletes it with its
/// files, the same bytes dropped again are not catalogued until she forgets them.
@Suite(
    "Deleting recordings", .blocksThreads, .serialized,
    .enabled(if: TestRequirement.runs(when: canSwitchUsers), "needs root and setpriv to connect as other uids"))
struct RecordingDeletionEndToEndTests {
    func command(_ daemon: TestDaemon, as uid: UInt32, _ arguments: [String]) throws -> CommandResult {
        try runAs(uid: uid, "/usr/bin/env", [try TestDaemon.executable(named: "steno"), "--socket", daemon.socketPath] + arguments)
    }

    /// The job a `steno recordings delete` queued, once finished.
    func finishedJobs(_ daemon: TestDaemon, kind: String) throws -> [Job] {
        try daemon.client().call(StenoMethods.jobsList, JobListParams(kind: kind, limit: 100)).items
    }

    @Test func onlyTheOwnerOrAnAdminDeletesAndTheSameBytesStayForgotten() throws {
        let (daemon, id, original, _) = try RecordingListenEndToEndTests().setUp(transcript: "We agreed on the new layout.\n")
        defer { daemon.shutdown() }
        let folder = daemon.inboxDirectory + "/alice"
        #expect(FileManager.default.fileExists(atPath: folder + "/review.json") && FileManager.default.fileExists(atPath: folder + "/review.txt"))

        // Bob sees the recording (he was in the meeting) but may not delete it; carol may not
        // learn whether it exists.
        let bob = try command(daemon, as: secondUID, ["recordings", "delete", String(id), "--yes"])
        #expect(bob.status == 5 && bob.stderr.contains("alice's: only its owner or an admin may delete it"), "\(bob.stderr)")
        for recording in [id, 999_999] {
            let carol = try command(daemon, as: RecordingListenEndToEndTests.carolUID, ["recordings", "delete", String(recording), "--yes"])
            #expect(carol.status == 5 && carol.stderr.contains("is not yours"), "\(carol.stderr)")
        }
        // Without a terminal to ask on, nothing happens without --yes.
        let unasked = try command(daemon, as: otherUID, ["recordings", "delete", String(id), "--file"])
        #expect(unasked.status == 64 && unasked.stderr.contains("--yes"), "\(unasked.stderr)")
        #expect(try daemon.client().call(StenoMethods.recordingsGet, RecordingReferenceParams(id: id)).id == id)

        let hash = try #require(try daemon.client().call(StenoMethods.recordingsGet, RecordingReferenceParams(id: id)).contentHash)
        let deleted = try command(daemon, as: otherUID, ["recordings", "delete", String(id), "--file", "--yes"])
        #expect(deleted.status == 0 && deleted.stdout.contains("deleted 1 recording(s), removed 3 file(s)"), "\(deleted.stdout) \(deleted.stderr)")
        for name in ["review.wav", "review.json", "review.txt"] {
            #expect(!FileManager.default.fileExists(atPath: folder + "/" + name), "\(name) is still in the inbox")
        }
        #expect(try IngestionEndToEndTests.recordings(daemon).isEmpty)
        #expect(try daemon.client().call(StenoMethods.searchQuery, SearchParams(text: "layout")).items.isEmpty)
        #expect(try daemon.client().call(StenoMethods.linksList, LinkListParams(limit: 10)).items.isEmpty)
        #expect(daemon.log.contains("recordings marked for deletion"), "\(daemon.log.suffix(1000))")

        // The same bytes dropped again (by root, into alice's folder) are ignored, naming the hash.
        try FileManager.default.copyItem(atPath: original, toPath: folder + "/again.wav")
        let ingested = try steno(daemon, ["ingest", folder + "/again.wav", "--wait"])
        #expect(ingested.stdout.contains("ignored"), "\(ingested.stdout) \(ingested.stderr)")
        let ignored = try #require(try finishedJobs(daemon, kind: "ingest").last?.result)
        #expect(ignored.contains("forget-content \(hash)"), "\(ignored)")
        #expect(try IngestionEndToEndTests.recordings(daemon).isEmpty)

        // Bob cannot forget what alice deleted; alice can, and the file is catalogued again.
        let bobForgets = try command(daemon, as: secondUID, ["recordings", "forget-content", hash])
        #expect(bobForgets.status == 5 && bobForgets.stderr.contains("deleted by alice"), "\(bobForgets.stderr)")
        let forgets = try command(daemon, as: otherUID, ["recordings", "forget-content", hash])
        #expect(forgets.status == 0 && forgets.stdout.contains("forgot 1 content hash"), "\(forgets.stdout) \(forgets.stderr)")
        #expect(try steno(daemon, ["ingest", folder + "/again.wav", "--wait"]).status == 0)
        let back = try IngestionEndToEndTests.recordings(daemon)
        #expect(back.count == 1 && back.first?.paths.map(\.path) == ["alice/again.wav"], "\(back)")
    }

    /// An admin deletes anyone's recording with its file; an id that does not exist is not found.
    @Test func anAdminDeletesAnyonesRecordingWithItsFile() throws {
        let daemon = try sharedSocketDaemon(extraConfig: VisibilityEndToEndTests.config)
        defer { daemon.shutdown() }
        #expect(try steno(daemon, ["users", "add", "alice", "--uid", String(otherUID)]).status == 0)
        try VisibilityEndToEndTests().drop(daemon, owner: "alice", "standup", at: Date(timeIntervalSince1970: 1_790_000_000), seed: 7)
        let folder = daemon.inboxDirectory + "/alice"
        _ = try steno(daemon, ["ingest", folder + "/standup.wav", "--wait"])
        let recordings = try IngestionEndToEndTests.recordings(daemon)
        try #require(recordings.count == 1, "\(recordings)")
        let deleted = try steno(daemon, ["recordings", "delete", String(recordings[0].id), "--file", "--yes", "--json"])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        let json = try JSONValue.parse(deleted.stdout)
        #expect(json["recordings"]?.arrayValue?.count == 1 && json["files"]?.intValue == 2, "\(deleted.stdout)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/standup.wav") && !FileManager.default.fileExists(atPath: folder + "/standup.json"))
        #expect(try IngestionEndToEndTests.recordings(daemon).isEmpty)
        // Purging: the kind must be said, the days read; nothing has been missing a day yet.
        let unsaid = try steno(daemon, ["recordings", "purge", "--older-than", "30d"])
        #expect(unsaid.status == 64 && unsaid.stderr.contains("--missing"), "\(unsaid.stderr)")
        let preview = try steno(daemon, ["recordings", "purge", "--missing", "--older-than", "1d", "--dry-run"])
        #expect(preview.status == 0 && preview.stdout.contains("0 recording(s) missing for more than 1 day(s)"), "\(preview.stdout) \(preview.stderr)")
        let member = try runAs(uid: otherUID, try TestDaemon.executable(named: "steno"), ["--socket", daemon.socketPath, "recordings", "purge", "--missing", "--older-than", "2w"])
        #expect(member.status == 5, "a member may not purge: \(member.stderr)")
        let unknown = try steno(daemon, ["recordings", "delete", "424242", "--yes"])
        #expect(unknown.status == 4 && unknown.stderr.contains("no recording 424242"), "\(unknown.stderr)")
    }
}
