#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StenoAPI
import StenoTesting
import StenoTestTraits
import Testing

/// How `steno` finds the daemon with no `--socket`: STENO_SOCKET, a client config file, the
/// user's runtime folder, then the system socket — and what it says when nothing answers.
@Suite("steno finds the daemon's socket", .blocksThreads, .serialized)
struct SocketDiscoveryCLITests {
    /// A home of one's own: `HOME`, `XDG_CONFIG_HOME` and `XDG_RUNTIME_DIR` in a fresh folder,
    /// so neither the test machine's files nor its environment decide where `steno` looks.
    struct Home {
        let root: String
        var configHome: String { root + "/config" }
        var runtime: String { root + "/run" }
        var environment: [String: String] { ["HOME": root, "XDG_CONFIG_HOME": configHome, "XDG_RUNTIME_DIR": runtime] }

        init() throws {
            root = NSTemporaryDirectory() + "steno-home-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            for folder in [root + "/config/steno", root + "/run"] {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            }
        }

        func writeClientConfig(_ text: String) throws {
            try text.write(toFile: configHome + "/steno/client.toml", atomically: true, encoding: .utf8)
        }

        /// Makes `daemon` answer at `$XDG_RUNTIME_DIR/steno/stenod.sock`, as one the user runs would.
        func answerInRuntimeFolder(_ daemon: TestDaemon) throws {
            try FileManager.default.createDirectory(atPath: runtime + "/steno", withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: runtime + "/steno/stenod.sock", withDestinationPath: daemon.socketPath)
        }

        func remove() { try? FileManager.default.removeItem(atPath: root) }
    }

    /// Whether the machine's own files could answer in place of the test's: a system client
    /// config or a live system socket would be found, so tests that need them absent skip.
    static var systemIsClean: Bool {
        let clean = !FileManager.default.fileExists(atPath: "/etc/steno/client.toml")
            && !FileManager.default.fileExists(atPath: "/run/steno/stenod.sock")
        return clean || ProcessInfo.processInfo.environment["CI"] == "true"
    }

    func steno(_ arguments: [String], home: Home, environment: [String: String] = [:]) throws -> CommandResult {
        try runCommand(try TestDaemon.executable(named: "steno"), arguments, environment: home.environment.merging(environment) { _, new in new })
    }

    @Test func aClientConfigFileNamesTheSocket() throws {
        let daemon = try TestDaemon()
        defer { daemon.shutdown() }
        let home = try Home()
        defer { home.remove() }
        try home.writeClientConfig("""
            # where our team's stenod listens
            socket = "\(daemon.socketPath)"   # set by the admin

            """)
        let result = try steno(["status", "--json"], home: home)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try JSONValue.parse(result.stdout)["socketPath"]?.stringValue == daemon.socketPath)

        // Without XDG_CONFIG_HOME the file is ~/.config/steno/client.toml.
        try FileManager.default.createDirectory(atPath: home.root + "/.config", withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: home.configHome + "/steno", toPath: home.root + "/.config/steno")
        let fromHome = try steno(["status", "--json"], home: home, environment: ["XDG_CONFIG_HOME": ""])
        #expect(fromHome.status == 0, "\(fromHome.stderr)")
    }

    @Test(.enabled(if: systemIsClean, "a system client config or socket exists on this machine"))
    func nothingAnswersListsEveryPlaceTried() throws {
        let home = try Home()
        defer { home.remove() }
        let result = try steno(["status"], home: home)
        #expect(result.status == 3)
        let runtimeSocket = home.runtime + "/steno/stenod.sock"
        #expect(result.stderr.contains(runtimeSocket), "\(result.stderr)")
        #expect(result.stderr.contains("/run/steno/stenod.sock"), "\(result.stderr)")
        #expect(result.stderr.contains("XDG_RUNTIME_DIR"), "where each place came from: \(result.stderr)")
        #expect(result.stderr.contains("client.toml"), "how to choose the socket: \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test func theRuntimeFolderIsTriedFirst() throws {
        let daemon = try TestDaemon()
        defer { daemon.shutdown() }
        let home = try Home()
        defer { home.remove() }
        try home.answerInRuntimeFolder(daemon)
        let result = try steno(["status", "--json"], home: home)
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test func anExplicitChoiceIsUsedAlone() throws {
        let daemon = try TestDaemon()
        defer { daemon.shutdown() }
        let home = try Home()
        defer { home.remove() }
        // A daemon answers in the runtime folder, but the environment names another socket.
        try home.answerInRuntimeFolder(daemon)
        let environment = try steno(["status"], home: home, environment: ["STENO_SOCKET": home.root + "/elsewhere.sock"])
        #expect(environment.status == 3)
        #expect(environment.stderr.contains(home.root + "/elsewhere.sock") && environment.stderr.contains("STENO_SOCKET"), "\(environment.stderr)")
        #expect(!environment.stderr.contains(home.runtime), "\(environment.stderr)")

        try home.writeClientConfig("socket = \"\(home.root)/configured.sock\"\n")
        let configured = try steno(["status"], home: home)
        #expect(configured.status == 3)
        #expect(configured.stderr.contains(home.root + "/configured.sock") && configured.stderr.contains("client.toml"), "\(configured.stderr)")

        // The flag wins over both.
        let flagged = try steno(["--socket", daemon.socketPath, "status"], home: home, environment: ["STENO_SOCKET": home.root + "/elsewhere.sock"])
        #expect(flagged.status == 0, "\(flagged.stderr)")
    }

    @Test func aBadClientConfigIsReportedWithItsLine() throws {
        let home = try Home()
        defer { home.remove() }
        try home.writeClientConfig("# ok\nsocket = /run/steno/stenod.sock\n")
        let unquoted = try steno(["status"], home: home)
        #expect(unquoted.status == 1)
        #expect(unquoted.stderr.contains(home.configHome + "/steno/client.toml") && unquoted.stderr.contains("line 2"), "\(unquoted.stderr)")

        try home.writeClientConfig("sockets = \"/run/steno/stenod.sock\"\n")
        let unknown = try steno(["status"], home: home)
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("sockets"), "\(unknown.stderr)")
    }

    @Test(.enabled(if: TestRequirement.runs(when: canSwitchUsers), "needs root and setpriv"))
    func permissionDeniedNamesTheGroup() throws {
        let daemon = try TestDaemon(config: "socket_mode = \"0660\"\n")
        defer { daemon.shutdown() }
        let result = try runAsOtherUser(try TestDaemon.executable(named: "steno"), ["--socket", daemon.socketPath, "status"])
        #expect(result.status == 5)
        var info = stat()
        #expect(stat(daemon.socketPath, &info) == 0)
        let group = getgrgid(info.st_gid).map { String(cString: $0.pointee.gr_name) } ?? String(info.st_gid)
        #expect(result.stderr.contains("group \(group)"), "\(result.stderr)")
        #expect(result.stderr.contains(daemon.socketPath), "\(result.stderr)")
        #expect(result.stderr.contains("you are not in it: ask an admin to add you to group \(group) (usermod -aG \(group)"), "\(result.stderr)")
    }

    @Test(.enabled(if: TestRequirement.runs(when: canSwitchUsers), "needs root and setpriv"))
    func aMemberOfTheGroupIsToldWhatStopsThem() throws {
        // In the socket's group, but the socket lets only its owner in.
        let owners = try TestDaemon(config: "socket_group = \"\(otherUID)\"\nsocket_mode = \"0600\"\n")
        defer { owners.shutdown() }
        let closed = try runAsOtherUser(try TestDaemon.executable(named: "steno"), ["--socket", owners.socketPath, "status"])
        #expect(closed.status == 5)
        #expect(
            closed.stderr.contains("the socket (mode 0600") && closed.stderr.contains("though you are in its group")
                && closed.stderr.contains("socket_mode = \"0660\""), "\(closed.stderr)")

        // The socket is open to the group, but its folder is not.
        let shared = try TestDaemon(config: "socket_group = \"\(otherUID)\"\nsocket_mode = \"0660\"\n")
        defer { shared.shutdown() }
        #expect(chmod(shared.root, 0o700) == 0)
        let folder = try runAsOtherUser(try TestDaemon.executable(named: "steno"), ["--socket", shared.socketPath, "status"])
        #expect(folder.status == 5)
        #expect(
            folder.stderr.contains("its folder \(shared.root) (mode 0700") && folder.stderr.contains("chmod g+x \(shared.root)")
                && !folder.stderr.contains("socket_mode"), "\(folder.stderr)")
    }

    @Test(.enabled(if: TestRequirement.runs(when: canSwitchUsers), "needs root and setpriv"))
    func aMemberIsNotToldToStartTheTeamsDaemon() throws {
        let path = "/run/steno-test-\(getpid())/stenod.sock"
        let member = try runAsOtherUser(try TestDaemon.executable(named: "steno"), ["--socket", path, "status"])
        #expect(member.stderr.contains("an admin starts the team's daemon with `systemctl start stenod`"), "\(member.stderr)")
        let own = try runAsOtherUser(try TestDaemon.executable(named: "steno"), ["--socket", "/tmp/steno-nowhere-\(getpid())/stenod.sock", "status"])
        #expect(own.stderr.contains("start it with `stenod`"), "\(own.stderr)")
    }
}
