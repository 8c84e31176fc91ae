import Foundation
import StenoAPI
import StenoTesting
import Testing

/// Runs a command and returns its exit status and output, bounded in time (the test's own
/// `STENO_SOCKET` is not passed on).
func runCommand(_ executable: String, _ arguments: [String], environment: [String: String] = [:], timeout: TimeInterval = 30) throws -> CommandResult {
    try ProcessRunner.run(executable, arguments, environment: environment, removing: ["STENO_SOCKET"], timeout: timeout)
}

/// `steno` with the daemon's socket.
func steno(_ daemon: TestDaemon, _ arguments: [String]) throws -> CommandResult {
    try runCommand(try TestDaemon.executable(named: "steno"), ["--socket", daemon.socketPath] + arguments)
}

/// `steno meetings` arguments for every meeting, whenever and even gone (by default it lists
/// today and the next 7 days, without meetings deleted at the source).
let everyMeeting = ["--from", "2000-01-01", "--include-gone"]

/// The uid tests use to stand for another person: nobody.
let otherUID: UInt32 = 65534

/// A second uid for tests that need two people besides root (group `otherUID`, so it may
/// open the shared socket too).
let secondUID: UInt32 = 65533

/// Runs a command as `otherUID` through setpriv (tests run as root).
func runAsOtherUser(_ executable: String, _ arguments: [String]) throws -> CommandResult {
    try runAs(uid: otherUID, executable, arguments)
}

/// Runs a command as `uid` (group `otherUID`) through setpriv (tests run as root).
func runAs(uid: UInt32, _ executable: String, _ arguments: [String]) throws -> CommandResult {
    try runCommand(
        "/usr/bin/setpriv",
        ["--reuid", String(uid), "--regid", String(otherUID), "--clear-groups", executable] + arguments)
}

/// Whether this test process may switch users (setpriv needs root).
var canSwitchUsers: Bool { getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") }

/// A test daemon whose socket the `otherUID` group may open.
func sharedSocketDaemon(extraConfig: String = "") throws -> TestDaemon {
    try TestDaemon(config: "socket_group = \"\(otherUID)\"\n" + extraConfig)
}

extension RawSocketClient {
    /// Sends a line and parses the one reply line.
    func call(_ line: String, timeout: TimeInterval = 10) throws -> JSONValue? {
        try sendLine(line)
        return try readJSON(timeout: timeout)
    }
}

/// Asks `fetch` every 200 ms until its answer satisfies `done` or `timeout` passes; returns
/// the last answer either way (the caller's expectations then say what was wrong).
func poll<T>(timeout: TimeInterval, _ fetch: () throws -> T, until done: (T) -> Bool) throws -> T {
    let deadline = Date().addingTimeInterval(timeout)
    var last = try fetch()
    while !done(last) && Date() < deadline {
        usleep(200_000)
        last = try fetch()
    }
    return last
}
