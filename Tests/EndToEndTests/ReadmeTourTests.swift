#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StenoTesting
import StenoTestTraits
import Testing

/// The README's CLI tour, run as written against `steno demo --keep`: once as the demo's admin
/// (alice, the caller's own uid) and once as its member bob (another uid). Each line is run by
/// bash, from a folder holding `Media/`, with the variables the demo prints. A line the tables
/// below do not name must succeed, so a changed README line is tried, not trusted.
@Suite("README tour", .blocksThreads, .serialized)
struct ReadmeTourTests {
    /// Lines that need a service outside this machine, with what they need.
    static let external: [String: String] = [
        "steno accounts add caldav --url https://caldav.icloud.com/ --user me@icloud.com --password-file ~/.icloud-app-pw":
            "an iCloud account and its app password",
        "steno accounts add graph --client-id APP-ID --wait": "a Microsoft 365 tenant and an app registration",
        "steno accounts add graph --tenant contoso.com --client-id APP-ID --client-secret-file app.secret --users a@contoso.com,b@contoso.com":
            "a Microsoft 365 tenant and an app secret",
        "steno accounts signin 3 --write": "a Microsoft 365 account",
        "steno meetings rename 16 \"Acme renewal kickoff\"": "a calendar Steno can write to (Microsoft 365, CalDAV or a phone)",
        "steno meetings create --for-recording 7 --title \"Customer call\"": "a calendar Steno can write to (Microsoft 365, CalDAV or a phone)",
    ]

    /// The admin's answers other than success. Cancelling depends on whether the job that
    /// `jobs retry 1` queued has run yet.
    static let adminAnswers: [String: Set<Int32>] = [
        "steno jobs cancel 1": [0, 1],
    ]

    /// The member's answers other than success: alice's recordings and accounts do not exist
    /// for bob (4), admin methods are refused (5), and alice's inbox folder is not his to write.
    static let memberAnswers: [String: Set<Int32>] = [
        "cp Media/recordings/retro.ogg $INBOX/alice/retro-copy.ogg": [1],
        "steno recordings show 7": [4],
        "steno recordings open 7": [5],
        "steno ingest $INBOX/alice --wait": [5],
        "steno accounts add ics Media/calendars/team.ics --owner alice --wait": [5],
        "steno accounts update 2 --source Media/calendars": [4],
        "steno accounts remove 2": [4],
        "steno calendars disable 2": [4],
        "steno recordings explain 7": [4],
        "steno link 5 7": [4],
        "steno unlink 5": [4],
        "steno links reset 5": [4],
        "steno links history 5": [4],
        "steno revalidate --wait": [5],
        "steno users add carol --email carol@corp.example --uid 1003 --role admin": [5],
        "steno users add dave --email dave@corp.example --uid 1004": [5],
        "steno users": [5],
        "steno users update dave --add-email dave.r@corp.example --remove-uid 1004": [5],
        "steno users remove dave": [5],
        "steno jobs show 1": [4],
        "steno jobs retry 1": [5],
        "steno jobs cancel 1": [5],
        "steno admin backup ~/catalog-2026-11-22.sqlite": [5],
        "steno recordings delete 7 --file --yes": [5],
        "steno recordings hold 2 --reason \"case 118\"": [5],
        "steno people show dana@example.com": [5],
        "steno people forget dana@example.com --yes": [5],
    ]

    /// The uid bob connects from in the member's run.
    static let memberUID = secondUID

    @Test func theTourRunsAsWrittenForTheDemosAdmin() throws {
        let tour = try ReadmeTour.load()
        let demo = try DemoSession.start()
        defer { demo.stop() }
        #expect(Set(demo.exports.keys) == Set(tour.exportedNames), "steno demo --keep prints \(demo.exports.keys.sorted()); the README exports \(tour.exportedNames)")
        let folder = try TourFolder(owner: nil)
        defer { folder.remove() }
        try run(tour, in: folder, demo: demo, answers: Self.adminAnswers) { script, environment in
            try ProcessRunner.run("/bin/bash", ["-c", script], environment: environment, timeout: 180)
        }
    }

    @Test(.enabled(if: TestRequirement.runs(when: canSwitchUsers), "needs root and setpriv to connect as another uid"))
    func theTourRunsAsWrittenForAMember() throws {
        let tour = try ReadmeTour.load()
        let demo = try DemoSession.start()
        defer { demo.stop() }
        // What an admin does for a member: their uid, and a socket their group may open.
        let added = try ProcessRunner.run(
            try TestDaemon.executable(named: "steno"), ["users", "update", "bob", "--add-uid", String(Self.memberUID)],
            environment: demo.exports)
        try #require(added.status == 0, "\(added)")
        try demo.admitGroup(otherUID)
        let folder = try TourFolder(owner: Self.memberUID)
        defer { folder.remove() }
        try run(tour, in: folder, demo: demo, answers: Self.memberAnswers) { script, environment in
            try ProcessRunner.run(
                "/usr/bin/setpriv",
                ["--reuid", String(Self.memberUID), "--regid", String(otherUID), "--clear-groups", "/bin/bash", "-c", script],
                environment: environment, timeout: 180)
        }
    }

    /// Runs every line of the tour in order, checking each answer.
    func run(
        _ tour: ReadmeTour, in folder: TourFolder, demo: DemoSession, answers: [String: Set<Int32>],
        _ execute: (String, [String: String]) throws -> CommandResult
    ) throws {
        var environment = demo.exports
        environment["HOME"] = folder.path
        environment["PATH"] = try TestDaemon.executable(named: "steno").deletingLastPathComponent + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        environment["COLUMNS"] = "80"
        for name in Set(answers.keys).union(Self.external.keys) {
            #expect(tour.commands.contains(name), "the tour has no line \"\(name)\" any more; update this test's tables")
        }
        var ran = 0
        for command in tour.commands where Self.external[command] == nil {
            let result = try execute("cd '\(folder.path)' && \(command)", environment)
            let expected = answers[command] ?? [0]
            #expect(expected.contains(result.status), "\(command) answered \(result.status), expected \(expected.sorted()):\n\(result.stdout)\(result.stderr)")
            #expect(!result.timedOut, "\(command) did not finish")
            if result.status != 0 && command.hasPrefix("steno ") {
                #expect(result.stderr.hasPrefix("steno: "), "\(command) failed without saying why: \(result)")
            }
            ran += 1
        }
        #expect(ran >= 35, "the tour ran \(ran) lines")
    }
}

/// The commands of the README's CLI tour (its first `sh` block after "## CLI tour").
struct ReadmeTour {
    /// Each command line, its trailing comment removed, in order.
    var commands: [String]
    /// The variables its `export` lines set.
    var exportedNames: [String]

    static func load() throws -> ReadmeTour {
        let readme = try String(contentsOfFile: repositoryRoot + "/README.md", encoding: .utf8)
        let lines = readme.components(separatedBy: "\n")
        let heading = try #require(lines.firstIndex(of: "## CLI tour"), "README.md has no \"## CLI tour\"")
        let open = try #require(lines[heading...].firstIndex(where: { $0.hasPrefix("```sh") }), "the tour has no sh block")
        let close = try #require(lines[(open + 1)...].firstIndex(where: { $0.hasPrefix("```") }), "the tour's block is not closed")
        var tour = ReadmeTour(commands: [], exportedNames: [])
        for line in lines[(open + 1)..<close] {
            let command = withoutComment(line)
            if command.isEmpty { continue }
            if command.hasPrefix("export ") {
                tour.exportedNames.append(String(command.dropFirst("export ".count).prefix { $0 != "=" }))
            } else {
                tour.commands.append(command)
            }
        }
        return tour
    }

    /// The line without its comment: from a `#` after two spaces (or at the start) to the end.
    static func withoutComment(_ line: String) -> String {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("#") { return "" }
        if let comment = line.range(of: "  #") { return String(line[..<comment.lowerBound]).trimmingCharacters(in: .whitespaces) }
        return trimmed
    }

    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
}

/// `steno demo --keep` running: the variables it prints, stopped with Ctrl-C's signal.
final class DemoSession {
    let process: ChildProcess
    let output: String
    /// `STENO_SOCKET`, `INBOX`: the `export` lines the demo prints for another terminal.
    let exports: [String: String]

    private init(process: ChildProcess, output: String, exports: [String: String]) {
        self.process = process
        self.output = output
        self.exports = exports
    }

    /// Starts `steno demo --keep`, on a terminal of its own when `onTerminal` (through
    /// `script`, whose standard input is then the terminal's keyboard).
    static func start(onTerminal: Bool = false) throws -> DemoSession {
        let output = NSTemporaryDirectory() + "/steno-tour-\(UUID().uuidString).log"
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "STENO_SOCKET")
        let demo = [try TestDaemon.executable(named: "steno"), "demo", "--keep", "--media", ReadmeTour.repositoryRoot + "/Media"]
        let process =
            onTerminal
            ? try ChildProcess(
                Self.script, ["-qfec", demo.map { "'\($0)'" }.joined(separator: " "), "/dev/null"], environment: environment,
                standardInput: .pipe, standardOutput: .appending(toFile: output), standardError: .standardOutput)
            : try ChildProcess(
                demo[0], Array(demo.dropFirst()), environment: environment, standardOutput: .appending(toFile: output),
                standardError: .standardOutput)
        // The demo ingests and mirrors first; its last words are the lines for another terminal.
        let deadline = Date().addingTimeInterval(300)
        var text = ""
        while Date() < deadline && process.isRunning {
            text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            if text.contains("Press Ctrl-C to stop it") { break }
            usleep(100_000)
        }
        guard text.contains("Press Ctrl-C to stop it") else {
            if process.isRunning { process.terminate() }
            throw DemoFailure(description: "steno demo --keep did not get ready:\n\(text)")
        }
        var exports: [String: String] = [:]
        // Split on Character: a terminal ends lines with "\r\n", one Character in Swift.
        for line in text.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
            guard trimmed.hasPrefix("export "), let equals = trimmed.firstIndex(of: "=") else { continue }
            exports[String(trimmed[trimmed.index(trimmed.startIndex, offsetBy: 7)..<equals])] = String(trimmed[trimmed.index(after: equals)...])
        }
        try? FileManager.default.removeItem(atPath: output)
        return DemoSession(process: process, output: text, exports: exports)
    }

    /// The demo's folder (holding the socket, the catalog and the inbox).
    var root: String { ((exports["STENO_SOCKET"] ?? "/nonexistent/x") as NSString).deletingLastPathComponent }

    /// Lets `group` reach the socket, as `socket_group` would: the folder may be passed through.
    func admitGroup(_ group: UInt32) throws {
        guard chmod(root, 0o711) == 0, let socket = exports["STENO_SOCKET"], chown(socket, uid_t.max, group) == 0 else {
            throw DemoFailure(description: "cannot open the demo's socket to group \(group): \(String(cString: strerror(errno)))")
        }
    }

    /// util-linux's `script`, which runs a command on a terminal of its own.
    static let script = "/usr/bin/script"

    /// The demo's daemon, while it runs.
    var daemon: pid_t? { Self.processID(commandLineContaining: root + "/stenod.sock", named: "stenod") }

    /// Sends steno the SIGINT of Ctrl-C; the demo stops its daemon and ends.
    func stop() {
        kill(process.processIdentifier, SIGINT)
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning && Date() < deadline { usleep(50_000) }
        if process.isRunning { process.terminate() }
        try? FileManager.default.removeItem(atPath: root)
    }

    /// The process whose command line names `executable` and holds `text`.
    static func processID(commandLineContaining text: String, named executable: String) -> pid_t? {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = pid_t(entry),
                  let data = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else { continue }
            let arguments = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            if let first = arguments.first, first.hasSuffix("/" + executable), arguments.contains(text) { return pid }
        }
        return nil
    }
}

struct DemoFailure: Error, CustomStringConvertible {
    var description: String
}

/// A working folder for the tour: `Media/` linked in, owned by the member who runs it.
struct TourFolder {
    let path: String

    init(owner: UInt32?) throws {
        path = NSTemporaryDirectory() + "/steno-tour-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: path + "/Media", withDestinationPath: ReadmeTour.repositoryRoot + "/Media")
        if let owner { _ = chown(path, owner, otherUID) }
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

private extension String {
    var deletingLastPathComponent: String { (self as NSString).deletingLastPathComponent }
}
