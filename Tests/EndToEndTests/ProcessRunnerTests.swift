import Foundation
import StenoTesting
import StenoTestTraits
import Testing

/// The tests' process runner reads both output streams at once and is bounded in time.
@Suite("Process runner", .blocksThreads)
struct ProcessRunnerTests {
    /// A child that fills the stderr pipe (64 KiB) before it writes stdout: a runner reading
    /// stdout to its end first waited for ever (here until timeout(1) kills the child after 20 s,
    /// so it never says "done").
    @Test func aChildFillingStderrFirstIsNotBlocked() throws {
        let script = "import sys; sys.stderr.write('e' * 200000); sys.stderr.flush(); print('done')"
        let result = try runCommand("/usr/bin/timeout", ["--signal=KILL", "20", "/usr/bin/env", "python3", "-c", script])
        #expect(result.status == 0)
        #expect(result.stdout == "done\n")
        #expect(result.stderr.utf8.count == 200_000)
    }

    @Test func aChildOutlivingItsTimeIsStopped() throws {
        let result = try ProcessRunner.run("/bin/sleep", ["30"], timeout: 0.5)
        #expect(result.timedOut)
        #expect(result.status != 0)
    }
}
