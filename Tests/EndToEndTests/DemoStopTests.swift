#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StenoTesting
import StenoTestTraits
import Testing

/// `steno demo --keep` stops as it says: Ctrl-C on its terminal, SIGTERM and SIGHUP each stop
/// the daemon (in a process group of its own, out of the terminal's reach) and remove the
/// demo's temporary folder.
@Suite("steno demo stops", .blocksThreads, .serialized)
struct DemoStopTests {
    @Test(.enabled(if: TestRequirement.runs(when: TestRequirement.hasExecutable(DemoSession.script)), "needs util-linux's script for a terminal"))
    func ctrlCOnItsTerminalStopsTheDaemonAndRemovesTheFolder() throws {
        let demo = try DemoSession.start(onTerminal: true)
        defer { demo.stop() }
        let daemon = try #require(demo.daemon, "the demo's daemon runs")
        demo.process.standardInput?.write(Data([0x03]))  // what the Ctrl-C key sends
        try expectStopped(demo, daemon: daemon)
    }

    @Test(arguments: [SIGTERM, SIGHUP])
    func aSignalStopsTheDaemonAndRemovesTheFolder(signal: Int32) throws {
        let demo = try DemoSession.start()
        defer { demo.stop() }
        let daemon = try #require(demo.daemon, "the demo's daemon runs")
        kill(demo.process.processIdentifier, signal)
        try expectStopped(demo, daemon: daemon)
        #expect(demo.process.termination == .exited(128 + signal), "steno ends as the signal would have ended it")
    }

    private func expectStopped(_ demo: DemoSession, daemon: pid_t, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(demo.process.waitUntilExit(timeout: 60), "steno demo ended", sourceLocation: sourceLocation)
        // Gone, or ended and waiting to be reaped by whoever inherited it.
        let deadline = Date().addingTimeInterval(30)
        while Self.runs(daemon) && Date() < deadline { usleep(50_000) }
        #expect(!Self.runs(daemon), "the daemon \(daemon) is gone", sourceLocation: sourceLocation)
        #expect(!FileManager.default.fileExists(atPath: demo.root), "\(demo.root) is removed", sourceLocation: sourceLocation)
    }

    /// Whether `pid` runs (a zombie has ended).
    static func runs(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let afterName = stat.range(of: ") ", options: .backwards)
        else { return false }
        return stat[afterName.upperBound...].first != "Z"
    }
}
