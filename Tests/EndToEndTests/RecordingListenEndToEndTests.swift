#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// Members hear the recordings they may see, against a real stenod, each as their own uid:
/// `recordings.open` hands the file the daemon opened over the socket (SCM_RIGHTS), so bob
/// plays and exports alice's recording of the meeting he attended without any permission on
/// her inbox folder, carol (not invited) gets exit 5 and nothing, and files gone, changed or
/// replaced by a symlink are refused with the reason.
@Suite(
    "Listening to recordings through the socket", .blocksThreads, .serialized,
    .enabled(if: TestRequirement.runs(when: canSwitchUsers), "needs root and setpriv to connect as other uids"))
struct RecordingListenEndToEndTests {
    /// A third person besides root, alice and bob (group `otherUID`, so the socket is open to her).
    static let carolUID: UInt32 = 65532
    let day = ICalendarText.yesterday

    func command(_ daemon: TestDaemon, as uid: UInt32, _ arguments: [String], environment: [String] = []) throws -> CommandResult {
        try runAs(
            uid: uid, "/usr/bin/env", environment + [try TestDaemon.executable(named: "steno"), "--socket", daemon.socketPath] + arguments)
    }

    /// Alice's design review with bob, her recording of it linked; a folder anyone may write.
    func setUp(transcript: String? = nil, moreAttendees: [String] = []) throws -> (daemon: TestDaemon, recording: Int64, original: String, scratch: String) {
        let daemon = try sharedSocketDaemon(extraConfig: VisibilityEndToEndTests.config)
        for (name, uid) in [("alice", otherUID), ("bob", secondUID), ("carol", Self.carolUID)] {
            #expect(try steno(daemon, ["users", "add", name, "--email", "\(name)@example.com", "--uid", String(uid)]).status == 0)
        }
        let calendar = daemon.root + "/alice.ics"
        try ICalendarText.calendar(
            ICalendarText.event(
                uid: "review-1", title: "Design review", start: day.addingTimeInterval(10 * 3600), end: day.addingTimeInterval(11 * 3600),
                organizer: "alice@example.com", attendees: ["PARTSTAT=ACCEPTED;CN=Bob:mailto:bob@example.com"] + moreAttendees)
        ).write(toFile: calendar, atomically: true, encoding: .utf8)
        let added = try steno(daemon, ["accounts", "add", "ics", calendar, "--owner", "alice", "--wait"])
        try #require(added.status == 0, "\(added.stderr)")
        if let transcript {
            try FileManager.default.createDirectory(atPath: daemon.inboxDirectory + "/alice", withIntermediateDirectories: true)
            try Data(transcript.utf8).write(to: URL(fileURLWithPath: daemon.inboxDirectory + "/alice/review.txt"))
        }
        try VisibilityEndToEndTests().drop(daemon, owner: "alice", "review", at: day.addingTimeInterval(10.05 * 3600), seed: 31)
        // Alice's folder is hers alone, as it must be.
        chmod(daemon.inboxDirectory + "/alice", 0o700)
        let client = try daemon.client()
        let linked = try poll(
            timeout: 60, { try client.call(StenoMethods.linksList, LinkListParams(limit: 10)).items }, until: { $0.first?.state == .linked })
        let recording = try #require(linked.first?.recording, "the recording was not linked: \(linked)\n\(daemon.log.suffix(2000))")
        let scratch = daemon.root + "/scratch"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        chmod(scratch, 0o1777)
        let original = scratch + "/original.wav"
        try FileManager.default.copyItem(atPath: daemon.inboxDirectory + "/alice/review.wav", toPath: original)
        chmod(original, 0o644)
        return (daemon, recording, original, scratch)
    }

    @Test func anAttendeePlaysAndExportsAnotherMembersRecordingAndOthersGetNothing() throws {
        let (daemon, id, original, scratch) = try setUp()
        defer { daemon.shutdown() }
        // Bob cannot read the file himself.
        let direct = try runAs(uid: secondUID, "/bin/cat", [daemon.inboxDirectory + "/alice/review.wav"])
        #expect(direct.status != 0, "bob could read alice's folder directly")

        let exported = try command(daemon, as: secondUID, ["recordings", "export", String(id), "-o", scratch + "/bob.wav"])
        #expect(exported.status == 0, "\(exported.stdout) \(exported.stderr)")
        #expect(FileManager.default.contentsEqual(atPath: original, andPath: scratch + "/bob.wav"))
        let again = try command(daemon, as: secondUID, ["recordings", "export", String(id), "-o", scratch + "/bob.wav"])
        #expect(again.status == 1 && again.stderr.contains("File exists"), "an existing file is not overwritten: \(again.stderr)")

        let piped = try runAs(
            uid: secondUID, "/bin/sh",
            ["-c", "\"$0\" --socket \"$1\" recordings export \"$2\" -o - > \"$3\"", try TestDaemon.executable(named: "steno"), daemon.socketPath,
             String(id), scratch + "/piped.wav"])
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(FileManager.default.contentsEqual(atPath: original, andPath: scratch + "/piped.wav"))

        // The player gets the file as /dev/fd/3: cmp says it is the recording.
        let played = try command(daemon, as: secondUID, ["recordings", "play", String(id)], environment: ["STENO_PLAYER=cmp \(original)"])
        #expect(played.status == 0, "\(played.stdout) \(played.stderr)")
        let opened = try command(daemon, as: secondUID, ["recordings", "open", String(id)], environment: ["STENO_PLAYER=cmp \(original)"])
        #expect(opened.status == 0, "\(opened.stdout) \(opened.stderr)")
        // The owner still gets the path.
        let path = try command(daemon, as: otherUID, ["recordings", "open", String(id)])
        #expect(path.status == 0 && path.stdout.hasSuffix("alice/review.wav\n"), "\(path.stdout) \(path.stderr)")

        // Carol was not invited: exit 5, no file, whether the recording exists or not.
        for recording in [id, 999_999] {
            let refused = try command(daemon, as: Self.carolUID, ["recordings", "export", String(recording), "-o", scratch + "/carol.wav"])
            #expect(refused.status == 5 && refused.stderr.contains("is not one you may hear"), "\(refused.stdout) \(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: scratch + "/carol.wav"))
        }
        #expect(daemon.log.contains("recording opened"), "\(daemon.log.suffix(1000))")
    }

    /// Bob takes the design review along: alice's recording copied through its descriptor, its
    /// transcript, the meeting with its attendees, names safe for any filesystem; carol, not
    /// invited, gets nothing, and an export never writes over a file already there.
    @Test func anAttendeeExportsTheMeetingWithItsRecordingTranscriptAndAttendees() throws {
        let (daemon, id, original, scratch) = try setUp(
            transcript: "We agreed on the new layout.\n", moreAttendees: ["PARTSTAT=TENTATIVE;CN=\"=HYPERLINK(1)\":mailto:mallory@example.com"])
        defer { daemon.shutdown() }
        let links = try daemon.client().call(StenoMethods.linksList, LinkListParams(limit: 10)).items
        let meeting = try #require(links.first { $0.recording == id }?.meeting)
        let folder = scratch + "/review"
        let exported = try command(daemon, as: secondUID, ["meetings", "export", String(meeting), "-o", folder])
        #expect(exported.status == 0, "\(exported.stdout) \(exported.stderr)")
        #expect(exported.stdout.contains("1 recording") && exported.stdout.contains("1 transcript"), "\(exported.stdout)")
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: folder))
        let stem = "recording-\(id)-alice"
        #expect(names == [stem + ".wav", stem + ".transcript.txt", "meeting.json", "attendees.csv"], "\(names)")
        #expect(FileManager.default.contentsEqual(atPath: original, andPath: "\(folder)/\(stem).wav"))
        #expect(try String(contentsOfFile: "\(folder)/\(stem).transcript.txt", encoding: .utf8).contains("new layout"))
        let json = try JSONValue.parse(try String(contentsOfFile: folder + "/meeting.json", encoding: .utf8))
        #expect(json["meeting"]?["title"]?.stringValue == "Design review")
        #expect(json["attendees"]?.arrayValue?.compactMap { $0["email"]?.stringValue }.contains("bob@example.com") == true, "\(json)")
        #expect(json["recordings"]?.arrayValue?.first?["file"]?.stringValue == stem + ".wav", "\(json)")
        let csv = try String(contentsOfFile: folder + "/attendees.csv", encoding: .utf8)
        #expect(csv.hasPrefix("EMAIL,NAME,ROLE,RESPONSE\n"), "\(csv)")
        #expect(csv.contains("bob@example.com,Bob,"), "\(csv)")
        #expect(csv.contains("mallory@example.com,'=HYPERLINK(1)"), "a formula from a calendar is written inert: \(csv)")

        // Again into the same folder: nothing is overwritten, nothing written.
        let again = try command(daemon, as: secondUID, ["meetings", "export", String(meeting), "-o", folder])
        #expect(again.status == 1 && again.stderr.contains("already exists"), "\(again.stderr)")
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: folder)) == names)

        // Without -o, a folder named after the meeting, in the current folder.
        let here = try runAs(
            uid: secondUID, "/bin/sh",
            ["-c", "cd \"$3\" && \"$0\" --socket \"$1\" meetings export \"$2\"", try TestDaemon.executable(named: "steno"),
             daemon.socketPath, String(meeting), scratch])
        #expect(here.status == 0, "\(here.stderr)")
        let made = try FileManager.default.contentsOfDirectory(atPath: scratch).filter { $0.hasSuffix("Design review") }
        #expect(made.count == 1 && made.first?.hasPrefix(String(ICalendarText.yesterday.description.prefix(4))) == true, "\(made)")

        let refused = try command(daemon, as: Self.carolUID, ["meetings", "export", String(meeting), "-o", scratch + "/carol"])
        #expect(refused.status != 0 && !FileManager.default.fileExists(atPath: scratch + "/carol"), "\(refused.stdout) \(refused.stderr)")
    }

    @Test func filesGoneChangedOrReplacedByASymlinkAreRefusedWithTheReason() throws {
        let (daemon, id, original, scratch) = try setUp()
        defer { daemon.shutdown() }
        let file = daemon.inboxDirectory + "/alice/review.wav"
        let appended = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
        appended.seekToEndOfFile()
        appended.write(Data([0, 1, 2]))
        try appended.close()
        let changed = try command(daemon, as: secondUID, ["recordings", "export", String(id), "-o", scratch + "/changed.wav"])
        #expect(changed.status == 1 && changed.stderr.contains("has changed"), "\(changed.stderr)")
        #expect(daemon.log.contains("a recording's file cannot be handed out"), "\(daemon.log.suffix(1000))")

        try FileManager.default.removeItem(atPath: file)
        #expect(symlink(original, file) == 0)
        let linked = try command(daemon, as: secondUID, ["recordings", "export", String(id), "-o", scratch + "/linked.wav"])
        #expect(linked.status != 0 && !FileManager.default.fileExists(atPath: scratch + "/linked.wav"), "\(linked.stderr)")
        #expect(linked.stderr.contains("symbolic link") || linked.stderr.contains("gone") || linked.stderr.contains("no file"), "\(linked.stderr)")

        try FileManager.default.removeItem(atPath: file)
        let gone = try command(daemon, as: secondUID, ["recordings", "export", String(id), "-o", scratch + "/gone.wav"])
        #expect(gone.status != 0 && !FileManager.default.fileExists(atPath: scratch + "/gone.wav"), "\(gone.stderr)")
    }

    /// A 2 GiB recording exports whole, byte for byte.
    @Test func aTwoGigabyteRecordingExportsCompletely() throws {
        let daemon = try sharedSocketDaemon(extraConfig: VisibilityEndToEndTests.config)
        defer { daemon.shutdown() }
        #expect(try steno(daemon, ["users", "add", "alice", "--email", "alice@example.com", "--uid", String(otherUID)]).status == 0)
        // A PCM WAV whose data chunk holds 2 GiB (allocated, not sparse: zeros on disk).
        let dataBytes: UInt32 = 2 << 30
        var header: [UInt8] = Array("RIFF".utf8) + Self.littleEndian(dataBytes + 36) + Array("WAVEfmt ".utf8) + Self.littleEndian(UInt32(16))
        header += [1, 0, 1, 0] + Self.littleEndian(UInt32(48_000)) + Self.littleEndian(UInt32(96_000)) + [2, 0, 16, 0]
        header += Array("data".utf8) + Self.littleEndian(dataBytes)
        let staged = daemon.root + "/big.wav"
        let descriptor = Glibc.open(staged, O_CREAT | O_WRONLY | O_EXCL, 0o644)
        try #require(descriptor >= 0)
        #expect(posix_fallocate(descriptor, 0, off_t(header.count) + off_t(dataBytes)) == 0)
        #expect(header.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) } == header.count)
        close(descriptor)
        try FileManager.default.createDirectory(atPath: daemon.inboxDirectory + "/alice", withIntermediateDirectories: true)
        #expect(rename(staged, daemon.inboxDirectory + "/alice/big.wav") == 0)
        let client = try daemon.client()
        let ready = try poll(
            timeout: 600, { try client.call(StenoMethods.recordingsList, RecordingListParams(limit: 10)).items.first },
            until: { $0?.status == .ready })
        let id = try #require(ready?.id, "not ingested: \(String(describing: ready))\n\(daemon.log.suffix(2000))")
        let copy = daemon.root + "/copy.wav"
        let exported = try runCommand(
            try TestDaemon.executable(named: "steno"), ["--socket", daemon.socketPath, "recordings", "export", String(id), "-o", copy], timeout: 600)
        #expect(exported.status == 0, "\(exported.stderr)")
        let size = (try? FileManager.default.attributesOfItem(atPath: copy)[.size] as? Int) ?? 0
        #expect(size == header.count + Int(dataBytes))
        let compared = try runCommand("/usr/bin/cmp", [daemon.inboxDirectory + "/alice/big.wav", copy], timeout: 600)
        #expect(compared.status == 0, "\(compared.stdout) \(compared.stderr)")
    }

    static func littleEndian(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8((value >> ($0 * 8)) & 0xFF) } }

    /// A client that asks a thousand times and never reads: the daemon keeps no descriptor
    /// once the client has gone.
    @Test func aThousandOpensNeverReadLeakNoDescriptor() throws {
        let (daemon, id, _, _) = try setUp()
        defer { daemon.shutdown() }
        let pid = try #require(daemon.process?.processIdentifier)
        let file = daemon.inboxDirectory + "/alice/review.wav"
        /// Descriptors open in the daemon (but the catalog's: its pool of readers grows with the
        /// reads at once), and those open on the recording's file.
        func open() -> (all: Int, recording: Int) {
            let targets = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []).map {
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")) ?? "?"
            }
            return (targets.filter { !$0.contains("/catalog.sqlite") }.count, targets.filter { $0 == file }.count)
        }
        // Warmed up first: the catalog opens its readers on first use.
        let client = try daemon.client()
        for _ in 0..<20 { close(try client.callReceivingDescriptor(StenoMethods.recordingsOpen, RecordingReferenceParams(id: id)).descriptor) }
        let before = open()
        do {
            let raw = try RawSocketClient(path: daemon.socketPath)
            for index in 1...1000 {
                try raw.sendLine(#"{"jsonrpc":"2.0","id":\#(index),"method":"recordings.open","params":{"id":\#(id)}}"#)
            }
            let answered = try poll(timeout: 120, { daemon.log.components(separatedBy: "recording opened").count - 1 }, until: { $0 >= 1020 })
            #expect(answered >= 1020, "\(answered - 20) of 1,000 opens answered")
        }
        let after = try poll(timeout: 60, open, until: { $0.all <= before.all && $0.recording == 0 })
        #expect(after.recording == 0, "the daemon still holds \(after.recording) descriptors of the recording")
        let targets = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []).map {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")) ?? "?"
        }
        #expect(after.all <= before.all, "descriptors before: \(before.all), after: \(after.all): \(targets.sorted())")
        #expect(try daemon.client().call(StenoMethods.systemVersion).version.isEmpty == false)
    }
}
