#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StenoAPI
import StenoCore

/// Waits for background jobs with a progress bar: `steno ingest --wait`, `steno sync --wait`.
enum JobWaiting {
    /// Polls the jobs until each has finished (succeeded, dead or cancelled). An id may repeat
    /// (a job of several files): the progress counts entries, so it counts files.
    ///
    /// - Throws: a `CLIFailure` naming `what` when `timeout` seconds pass first.
    static func wait(for ids: [Int64], label: String, what: String, timeout: Double, client: StenoClient) throws -> [Int64: Job] {
        let progress = ProgressLine(total: ids.count, label: label)
        var finished: [Int64: Job] = [:]
        let deadline = Date().addingTimeInterval(timeout)
        while finished.count < Set(ids).count {
            for id in Set(ids) where finished[id] == nil {
                let job = try client.call(StenoMethods.jobsGet, JobIDParams(id: id))
                if [.succeeded, .dead, .cancelled].contains(job.state) { finished[id] = job }
            }
            progress.update(ids.filter { finished[$0] != nil }.count)
            if finished.count < Set(ids).count {
                guard Date() < deadline else {
                    progress.finish()
                    throw CLIFailure(
                        message: "\(Set(ids).count - finished.count) \(what) still not done after \(Int(timeout)) s; see steno jobs",
                        exitCode: 1)
                }
                usleep(100_000)
            }
        }
        progress.finish()
        return finished
    }

    /// After the summary is printed: exit 1 when any waited-for item failed or ended dead,
    /// naming each (`failed`: one "item (why)" per failure), so a script can trust exit code 0.
    static func requireSuccess(_ failed: [String], saying summary: (Int) -> String) throws {
        guard !failed.isEmpty else { return }
        throw CLIFailure(message: "\(summary(failed.count)): \(failed.joined(separator: "; "))", exitCode: 1)
    }
}

/// A one-line progress bar on standard error when it is a terminal; silent otherwise.
final class ProgressLine {
    private let total: Int
    private let label: String
    private let enabled = isatty(STDERR_FILENO) != 0
    private var last = -1

    init(total: Int, label: String) {
        self.total = total
        self.label = label
    }

    func update(_ done: Int) {
        guard enabled, done != last, total > 0 else { return }
        last = done
        let width = 30
        let filled = width * done / total
        let bar = String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled)
        FileHandle.standardError.write(Data("\r\(label) [\(bar)] \(done)/\(total)".utf8))
    }

    func finish() {
        if enabled && last >= 0 { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
