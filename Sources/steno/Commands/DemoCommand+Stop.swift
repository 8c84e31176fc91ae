import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

extension DemoCommand {
    /// Stops the demo on Ctrl-C, SIGTERM or SIGHUP: the daemon (which runs in a process group of
    /// its own, so a terminal's Ctrl-C never reaches it) is told to stop, then its temporary
    /// folder is removed and steno exits as the signal would have ended it.
    enum Stop {
        static let signals = [SIGINT, SIGTERM, SIGHUP]
        /// The sources must outlive the call that made them.
        nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

        /// Set once a signal started the stop: the daemon's end is then the stop's doing.
        private static let stopping = Atomic<Bool>(false)

        /// Whether a signal is stopping the demo.
        static var isStopping: Bool { stopping.load(ordering: .acquiring) }

        /// Waits for the stop under way to exit the process.
        static func awaitExit() -> Never {
            while true { pause() }
        }

        /// Handles the signals from now on, for the daemon `daemon` serving from `root`.
        static func install(daemon: pid_t, root: String) {
            let queue = DispatchQueue(label: "steno.demo.stop")
            sources = signals.map { number in
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler { stop(daemon: daemon, root: root, signal: number) }
                source.resume()
                return source
            }
        }

        /// Stops the daemon (SIGTERM; SIGKILL if it outlives ten seconds), removes `root` and exits.
        static func stop(daemon: pid_t, root: String, signal number: Int32) -> Never {
            stopping.store(true, ordering: .releasing)
            Output.say("\nstopping the demo daemon…")
            kill(daemon, SIGTERM)
            let deadline = Date().addingTimeInterval(10)
            while runs(daemon) && Date() < deadline { usleep(20_000) }
            if runs(daemon) { kill(daemon, SIGKILL) }
            try? FileManager.default.removeItem(atPath: root)
            Output.say("demo stopped; \(root) removed")
            Glibc.exit(128 + number)
        }

        /// Whether `pid` runs: it exists and has not ended (an ended child stays a zombie until
        /// reaped, and `kill(pid, 0)` still finds it).
        static func runs(_ pid: pid_t) -> Bool {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let afterName = stat.range(of: ") ", options: .backwards)
            else { return false }
            return stat[afterName.upperBound...].first != "Z"
        }
    }
}
