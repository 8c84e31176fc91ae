#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StenoAPI
import StenoCore

/// Waits for background jobs with a progress bar: `steno ingest --wait`, `steno sync --wait`.
enum JobWaiting {
    /// Follows the jobs over `system.subscribe` until each has finished (succeeded, dead or
    /// cancelled), printing each failed attempt, retry time, the last error and each new
    /// progress text of a running job on standard error as it happens. An id may repeat (a job of several files): the progress counts entries, so
    /// it counts files. With `untilFailedAttempt` (a new account's first sync) it returns as soon
    /// as an attempt fails, the failed job in its `failed` state.
    ///
    /// - Throws: a `CLIFailure` naming `what` when `timeout` seconds pass first.
    static func wait(
        for ids: [Int64], label: String, what: String, timeout: Double, client: StenoClient, untilFailedAttempt: Bool = false
    ) throws -> [Int64: Job] {
        let progress = ProgressLine(total: ids.count, label: label)
        var seen: [Int64: Job] = [:]
        client.onNotification = { notification in
            guard notification.method == StenoMethods.jobsChangedNotification, let params = notification.params,
                let job = try? JSONValueDecoder().decode(Job.self, from: params)
            else { return }
            if let line = attemptLine(job, previous: seen[job.id]) { progress.interject(line) }
            if let line = progressLine(job, previous: seen[job.id]) { progress.interject(line) }
            seen[job.id] = job
            progress.update(ids.filter { seen[$0].map { !$0.state.isLive } ?? false }.count)
        }
        defer { client.onNotification = nil }
        let result = try client.call(
            StenoMethods.systemSubscribe, SubscribeParams(jobs: ids, timeoutSeconds: timeout, untilFailedAttempt: untilFailedAttempt))
        progress.finish()
        let jobs = Dictionary(result.jobs.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        if result.reason == "failed-attempt" { return jobs }
        let finished = jobs.filter { !$0.value.state.isLive }
        guard finished.count == Set(ids).count else {
            throw CLIFailure(
                message: "\(Set(ids).count - finished.count) \(what) still not done after \(Int(timeout)) s; see steno jobs", exitCode: 1)
        }
        return finished
    }

    /// What a person waiting should hear of a change: an attempt that failed (with its error
    /// and when the next one runs), a retry starting, a job giving up.
    static func attemptLine(_ job: Job, previous: Job?) -> String? {
        guard job.state != previous?.state || job.attempts != previous?.attempts else { return nil }
        let error = job.lastError.map { ": \($0)" } ?? ""
        switch job.state {
        case .failed:
            return "job \(job.id) (\(job.kind)): attempt \(job.attempts) of \(job.maxAttempts) failed\(error); next attempt at \(Output.date(job.runAt))"
        case .running where job.attempts > 1:
            return "job \(job.id) (\(job.kind)): attempt \(job.attempts) of \(job.maxAttempts) running"
        case .dead:
            return "job \(job.id) (\(job.kind)): gave up after \(job.attempts) attempt(s)\(error)"
        default:
            return nil
        }
    }

    /// A running job's new progress text ("job 12 (link): linking 40 recordings").
    static func progressLine(_ job: Job, previous: Job?) -> String? {
        guard job.state == .running, let text = job.progress, text != previous?.progress else { return nil }
        return "job \(job.id) (\(job.kind)): \(text)"
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

    /// A line of its own on standard error (terminal or not), the bar redrawn below it.
    func interject(_ line: String) {
        let redraw = enabled && last >= 0
        FileHandle.standardError.write(Data(((redraw ? "\r\u{1B}[K" : "") + TerminalText.cleanLines(line) + "\n").utf8))
        if redraw {
            let done = last
            last = -1
            update(done)
        }
    }

    func finish() {
        if enabled && last >= 0 { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
