#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Foundation
import StenoAPI
import StenoCore

/// `steno demo`: starts a daemon on a throw-away catalog with the `Media/` samples, shows
/// what Steno holds, and stops it again (or keeps it running with --keep).
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run a demo daemon on a temporary catalog with the Media/ samples and show the result.",
        discussion: """
            The daemon runs on a catalog and inbox in a new folder under /tmp, removed when the demo ends. Ctrl-C, SIGTERM or SIGHUP stop the daemon and remove the folder at any moment, with --keep too.

            Examples:
              steno demo          # show what Steno makes of the samples, then stop
              steno demo --keep   # keep the daemon running to try commands
            """)

    @Option(name: .long, help: "The samples folder (default ./Media).") var media = "Media"
    @Option(name: .long, help: "The stenod binary (default: next to steno).") var stenod: String?
    @Flag(name: .long, help: "Keep the daemon running until Ctrl-C, for trying commands against it.") var keep = false

    func run() throws {
        try reportingFailures {
            let mediaURL = URL(fileURLWithPath: media).standardizedFileURL
            guard FileManager.default.fileExists(atPath: mediaURL.path) else {
                throw CLIFailure(message: "no samples folder at \(mediaURL.path); run from the repository root or pass --media DIR", exitCode: 64)
            }
            let daemonPath = try stenod ?? Self.siblingExecutable("stenod")
            let root = try Self.makeTemporaryDirectory()
            let socket = root + "/stenod.sock"
            let inbox = root + "/inbox"
            try Self.stageSamples(from: mediaURL, into: inbox)

            let log = root + "/stenod.log"
            _ = FileManager.default.createFile(atPath: log, contents: nil)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: daemonPath)
            // The sample calendars are from November 2026: a wide window keeps them mirrored.
            let config = root + "/stenod.toml"
            try "[calendars]\nwindow_past_days = 3650\n".write(toFile: config, atomically: true, encoding: .utf8)
            process.arguments = ["--config", config, "--socket", socket, "--data-dir", root + "/data", "--inbox", inbox]
            process.standardOutput = FileHandle(forWritingAtPath: log)
            process.standardError = FileHandle(forWritingAtPath: log)
            try process.run()
            Stop.install(daemon: process.processIdentifier, root: root)
            defer {
                if Stop.isStopping { Stop.awaitExit() }
                if process.isRunning {
                    process.terminate()
                    process.waitUntilExit()
                }
                if !keep { try? FileManager.default.removeItem(atPath: root) }
            }
            let client = try Self.waitForDaemon(socket: socket, process: process, log: log)

            Output.say("Steno demo: a daemon on a temporary catalog in \(root)\n")
            for user in Self.demoUsers(you: getuid()) {
                _ = try? client.call(StenoMethods.usersAdd, user)
            }
            let staged = (try? FileManager.default.contentsOfDirectory(atPath: inbox + "/alice"))?
                .filter { !$0.hasPrefix(".") && !$0.hasSuffix(".json") }.count ?? 0
            let status = try client.call(StenoMethods.systemStatus)
            Output.say("Daemon \(status.version), schema \(status.schemaVersion), database \(status.databasePath)")
            Output.say("Inbox \(status.inboxPath) holds the \(staged) samples of \(mediaURL.path) in alice/\n")
            let users = try client.call(StenoMethods.usersList, PageParams())
            Output.sayTable(UsersCommand.table(users.items))
            Output.say("\nIngesting (the watcher settles each file, then reads it with Steno's own parsers)…\n")
            let recordings = try Self.waitForRecordings(client: client, count: staged)
            Output.sayTable(RecordingsCommand.table(recordings, reasons: false))
            Output.say("")
            try Self.mirrorSampleCalendars(from: mediaURL.appendingPathComponent("calendars").path, client: client)
            try Self.showLinks(client: client)
            let after = try client.call(StenoMethods.systemStatus)
            var counts = TableWriter(["TABLE", "ROWS"])
            for (name, count) in after.counts.sorted(by: { $0.key < $1.key }) { counts.add([name, String(count)]) }
            Output.sayTable(counts)

            if keep {
                Output.say("""

                    The daemon keeps running; you are its alice (an admin). In another terminal:
                      export STENO_SOCKET=\(socket)
                      export INBOX=\(inbox)
                      steno status
                    Press Ctrl-C to stop it (the folder is removed with it).
                    """)
                process.waitUntilExit()
                if Stop.isStopping { Stop.awaitExit() }
                // Here only when the daemon ended by itself: its log tells why.
                throw CLIFailure(message: "the demo daemon stopped (\(process.terminationStatus)); its log is \(log)", exitCode: 1)
            }
        }
    }

    /// Adds the sample calendars as alice's ICS account, waits for the first sync, shows it.
    static func mirrorSampleCalendars(from folder: String, client: StenoClient) throws {
        guard FileManager.default.fileExists(atPath: folder) else { return }
        Output.say("Mirroring the sample calendars of \(folder) for alice (ICS account)…\n")
        let added = try client.call(StenoMethods.accountsAdd, AccountAddParams(provider: .ics, owner: "alice", source: folder))
        if let job = added.job {
            _ = try JobWaiting.wait(for: [job], label: "syncing", what: "sync(s)", timeout: 60, client: client)
        }
        let accounts = try client.call(StenoMethods.accountsList, AccountListParams())
        Output.sayTable(AccountsCommand.table(accounts.items))
        for account in accounts.items where account.health != .ok {
            Output.say("account \(account.id): \(account.lastError ?? "")")
        }
        Output.say("")
    }

    /// Waits for linking to settle, then shows links, recorded meetings and one meeting's attendees.
    static func showLinks(client: StenoClient) throws {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            var busy = 0
            for state in [JobState.queued, .running, .failed] {
                busy += try client.call(StenoMethods.jobsList, JobListParams(state: state, limit: 1000)).items
                    .filter { ["ingest", "calendar.sync", "link", "links.after-sync"].contains($0.kind) }.count
            }
            if busy == 0 { break }
            usleep(100_000)
        }
        Output.say("Links (each recording and the meeting it captured; steno links):\n")
        let links = try client.call(StenoMethods.linksList, LinkListParams(limit: 100)).items
        Output.sayTable(LinksCommand.table(links))
        Output.say("\nRecorded meetings (steno meetings --recorded):\n")
        let meetings = try client.call(StenoMethods.meetingsList, MeetingListParams(recorded: true, limit: 100)).items
        Output.sayTable(MeetingsCommand.table(meetings))
        if let meeting = meetings.first(where: { $0.title.contains("moved") }) ?? meetings.first {
            Output.say("\nAttendees of meeting \(meeting.id), \"\(meeting.title)\" (steno attendees \(meeting.id)):\n")
            let attendees = try client.call(StenoMethods.attendeesList, AttendeeListParams(id: meeting.id)).items
            Output.sayTable(AttendeesCommand.table(attendees))
        }
        Output.say("")
    }

    /// Alice is the person running the demo (their uid), so commands that act for the caller —
    /// pairing a phone, adding an account without `--owner` — work in the tour as written.
    static func demoUsers(you uid: uid_t) -> [UserAddParams] { [
        UserAddParams(name: "alice", displayName: "Alice Martin", emails: ["alice@example.com"], uids: [uid], role: .admin),
        UserAddParams(name: "bob", displayName: "Bob Chen", emails: ["bob@example.com"], role: .member),
    ] }

    /// Copies the sample recordings (with their sidecars) into `inbox/alice/`.
    static func stageSamples(from media: URL, into inbox: String) throws {
        let destination = inbox + "/alice"
        try FileManager.default.createDirectory(atPath: destination, withIntermediateDirectories: true)
        let recordings = media.appendingPathComponent("recordings")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: recordings.path)) ?? []
        for name in names.sorted() where !name.hasPrefix(".") {
            try FileManager.default.copyItem(atPath: recordings.path + "/" + name, toPath: destination + "/" + name)
        }
    }

    static func siblingExecutable(_ name: String) throws -> String {
        let own = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let candidate = URL(fileURLWithPath: own).deletingLastPathComponent().appendingPathComponent(name).path
        guard FileManager.default.isExecutableFile(atPath: candidate) else {
            throw CLIFailure(message: "no \(name) next to steno (\(candidate)); build it with `swift build` or pass --stenod PATH", exitCode: 1)
        }
        return candidate
    }

    static func makeTemporaryDirectory() throws -> String {
        var template = Array((NSTemporaryDirectory() + "/steno-demo-XXXXXX").utf8CString)
        guard let pointer = mkdtemp(&template) else {
            throw CLIFailure(message: "cannot create a temporary folder: \(String(cString: strerror(errno)))", exitCode: 1)
        }
        return URL(fileURLWithPath: String(cString: pointer)).standardizedFileURL.path
    }

    /// Waits (at most 30 s) until `count` recordings are catalogued and no job is left.
    static func waitForRecordings(client: StenoClient, count: Int) throws -> [Recording] {
        let deadline = Date().addingTimeInterval(30)
        while true {
            let page = try client.call(StenoMethods.recordingsList, RecordingListParams(limit: 1000))
            let queue = try client.call(StenoMethods.systemStatus).queueDepth
            if (page.items.count >= count && queue == 0) || Date() > deadline { return page.items }
            usleep(200_000)
        }
    }

    /// Polls the socket until the daemon answers (at most 30 s), or reports why it died.
    static func waitForDaemon(socket: String, process: Process, log: String) throws -> StenoClient {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            guard process.isRunning else {
                let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                throw CLIFailure(message: "stenod exited during start-up:\n\(output)", exitCode: 1)
            }
            if let client = try? StenoClient(socketPath: socket), (try? client.call(StenoMethods.systemVersion)) != nil {
                return client
            }
            usleep(50_000)
        }
        throw CLIFailure(message: "stenod did not answer on \(socket) within 30 s; see \(log)", exitCode: 1)
    }
}
