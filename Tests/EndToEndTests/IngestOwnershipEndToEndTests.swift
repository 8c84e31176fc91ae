#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// A member acting in their own inbox folder (as their own uid) cannot take, retitle or give
/// away another user's recordings.
@Suite("Ingest ownership end to end", .blocksThreads, .serialized)
struct IngestOwnershipEndToEndTests {
    /// Switching users needs root and setpriv; under CI=true their absence fails the test.
    static var runnable: Bool { TestRequirement.runs(when: canSwitchUsers) }

    @Test(.enabled(if: runnable, "needs root and setpriv to act as another uid"))
    func aMembersLinkOrSidecarCannotReachAnotherUsersRecording() throws {
        #expect(canSwitchUsers, "CI must be able to switch users")
        let daemon = try TestDaemon(config: IngestionEndToEndTests.config)
        let client = try daemon.client()
        _ = try client.call(StenoMethods.usersAdd, UserAddParams(name: "alice", emails: ["alice@example.com"]))
        _ = try client.call(StenoMethods.usersAdd, UserAddParams(name: "bob", emails: ["bob@example.com"], uids: [otherUID]))
        let inbox = daemon.inboxDirectory
        for folder in ["alice", "bob"] { try FileManager.default.createDirectory(atPath: inbox + "/" + folder, withIntermediateDirectories: true) }
        chmod(inbox, 0o755)
        #expect(chown(inbox + "/bob", otherUID, otherUID) == 0)
        try IngestionEndToEndTests.wav(seed: 1).write(to: URL(fileURLWithPath: inbox + "/alice/standup.wav"))
        try Data(#"{"title":"Alice's standup"}"#.utf8).write(to: URL(fileURLWithPath: inbox + "/alice/standup.json"))
        let alices = try #require(
            try IngestionEndToEndTests.waitForRecordings(daemon, timeout: 30) { $0.contains { $0.title == "Alice's standup" } }.first)

        // Bob, as his own uid: a link to alice's file with a sidecar, and a sidecar naming alice.
        #expect(try runAs(uid: otherUID, "/bin/ln", ["-s", inbox + "/alice/standup.wav", inbox + "/bob/x.wav"]).status == 0)
        #expect(try runAs(uid: otherUID, "/bin/sh", ["-c", #"printf '{"title":"Bob was here"}' > "$0""#, inbox + "/bob/x.json"]).status == 0)
        let forged = #"printf '{"owner":"alice@example.com","title":"Bob gives"}' > "$0/forged.json"; cp "$1" "$0/forged.wav""#
        let source = daemon.root + "/forged-source.wav"
        try IngestionEndToEndTests.wav(seed: 2).write(to: URL(fileURLWithPath: source))
        chmod(source, 0o644)
        #expect(try runAs(uid: otherUID, "/bin/sh", ["-c", forged, inbox + "/bob", source]).status == 0)

        let recordings = try IngestionEndToEndTests.waitForRecordings(daemon, timeout: 30) { all in
            all.contains { $0.paths.contains { $0.path == "bob/x.wav" } } && all.contains { $0.title == "Bob gives" }
        }
        let link = recordings.first { $0.paths.contains { $0.path == "bob/x.wav" } }
        #expect(link?.id != alices.id, "bob's link is not a path of alice's recording")
        #expect(link?.status == .failed)
        #expect(link?.ownerName == "bob")
        let alicesNow = recordings.first { $0.id == alices.id }
        #expect(alicesNow?.title == "Alice's standup")
        #expect(alicesNow?.paths.map(\.path) == ["alice/standup.wav"])
        let given = recordings.first { $0.title == "Bob gives" }
        #expect(given?.ownerName == "bob", "a member's sidecar cannot give a recording away")
        let log = daemon.log
        #expect(log.contains("sidecar owner ignored") && log.contains("alice@example.com"), "the warning names the claimed owner")
    }
}
