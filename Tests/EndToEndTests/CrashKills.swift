#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StenoAPI
import StenoCore
import StenoTesting

/// Kills of a daemon at random instants of a job's run, for the tests that a crash at any
/// instant leaves each recording whole or gone, and that the job finishes after the restart.
enum CrashKills {
    /// Kills `daemon` (SIGKILL) `kills` times, each at a random instant up to `maxDelay()`
    /// microseconds after job `id` runs again; calls `whileDown` with the kill's number while
    /// the daemon is down, then starts it again.
    static func kill(
        _ daemon: TestDaemon, during id: Int64, kills: Int, maxDelay: () -> UInt32, whileDown: (Int) throws -> Void
    ) throws {
        var generator = SystemRandomNumberGenerator()
        for kill in 0..<kills {
            let client = try daemon.client()
            var waits = 0
            while waits < 3_000, try [.queued, .failed].contains(client.call(StenoMethods.jobsGet, JobIDParams(id: id)).state) {
                usleep(2_000)
                waits += 1
            }
            usleep(UInt32.random(in: 0...maxDelay(), using: &generator))
            daemon.stop(signal: SIGKILL)
            try whileDown(kill)
            try daemon.start()
        }
    }

    /// Restarts `daemon` and waits until its watcher has rescanned the inbox; false when it did
    /// not within 30 seconds.
    static func restartAndAwaitRescan(_ daemon: TestDaemon) throws -> Bool {
        let watching = "watching " + (URL(fileURLWithPath: daemon.inboxDirectory).resolvingSymlinksInPath().path)
        let before = daemon.log.components(separatedBy: watching).count
        daemon.stop()
        try daemon.start()
        let log = try poll(timeout: 30, { daemon.log }, until: { $0.components(separatedBy: watching).count > before })
        return log.components(separatedBy: watching).count > before
    }
}
