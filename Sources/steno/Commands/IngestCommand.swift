#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Foundation
import StenoAPI
import StenoCore

/// `steno ingest PATH… [--wait]`: read files of the inbox now, ahead of the watcher.
struct IngestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest", abstract: "Ingest inbox files or folders now (the watcher does it by itself too).",
        discussion: """
            Examples:
              steno ingest $INBOX/alice --wait        # a whole folder, with a progress bar
              steno ingest $INBOX/alice/standup.m4a   # one file, without waiting
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: "Files or folders inside the daemon's inbox.") var paths: [String]
    @Flag(name: .long, help: "Wait until every file is read and linked; show progress and a summary (how many recordings linked, unlinked, ambiguous).")
    var wait = false
    @Option(name: .long, help: "With --wait: give up after this many seconds.") var timeout: Double = 600

    func run() throws {
        try reportingFailures {
            let absolute = paths.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
            try global.withClient { client in
                let result = try client.call(StenoMethods.recordingsIngest, IngestParams(paths: absolute))
                guard wait else {
                    if global.format.isHuman {
                        Output.say("queued \(result.jobs.count) file(s); follow with: steno jobs --kind ingest")
                    } else {
                        Output.print(Output.json(result), table: TableWriter([]), format: global.format)
                    }
                    return
                }
                let started = Date()
                let jobs = try waitForJobs(result.jobs, client: client)
                let linking = try waitForLinking(after: jobs.map(\.job), client: client, timeout: timeout - Date().timeIntervalSince(started))
                try summarize(jobs, linking: linking, client: client)
            }
        }
    }

    /// Waits for every job; the paths with their finished jobs, in the order queued.
    private func waitForJobs(_ queued: [IngestResult.IngestJob], client: StenoClient) throws -> [(path: String, job: Job)] {
        let finished = try JobWaiting.wait(
            for: queued.map(\.jobID), label: "ingesting", what: "file(s)", timeout: timeout, client: client)
        return queued.compactMap { entry in finished[entry.jobID].map { (entry.path, $0) } }
    }

    /// Waits for the `link` jobs the finished ingest jobs name (`"linkJob"` in their results),
    /// showing their progress; the link jobs as they ended.
    private func waitForLinking(after jobs: [Job], client: StenoClient, timeout: Double) throws -> [Job] {
        var ids = Set<Int64>()
        for job in jobs {
            guard let result = job.result.flatMap({ try? JSONValue.parse($0) }) else { continue }
            let entries: [JSONValue]
            if case .array(let files)? = result["files"] { entries = files } else { entries = [result] }
            for entry in entries { if let id = entry["linkJob"]?.intValue { ids.insert(id) } }
        }
        guard !ids.isEmpty else { return [] }
        let finished = try JobWaiting.wait(
            for: ids.sorted(), label: "linking", what: "link job(s)", timeout: max(1, timeout), client: client)
        return finished.values.sorted { $0.id < $1.id }
    }

    private func summarize(_ jobs: [(path: String, job: Job)], linking: [Job], client: StenoClient) throws {
        var table = TableWriter(["PATH", "RESULT", "RECORDING", "DETAIL"])
        var counts: [String: Int] = [:]
        var failed: [String] = []
        // The recordings this command's files made and that a link job took on.
        var linkedHere = Set<Int64>()
        for (path, job) in jobs {
            var result = job.result.flatMap { try? JSONValue.parse($0) }
            // A job of many files has an entry per file.
            if case .array(let files)? = result?["files"] { result = files.first { $0["path"]?.stringValue == path } }
            if let retried = result?["retriedAs"]?.intValue {
                counts["retrying", default: 0] += 1
                table.add([path, "retrying", "-", "on its own as job \(retried): steno jobs show \(retried)"])
                continue
            }
            var outcome = job.state == .succeeded ? "ok" : job.state.rawValue
            var detail = job.state == .succeeded ? "" : (job.lastError ?? "")
            let recordingID = result?["recording"]?.intValue
            if let recordingID, result?["linkJob"] != nil { linkedHere.insert(recordingID) }
            if let status = result?["status"]?.stringValue { outcome = status }
            if result?["gone"] == true { outcome = "gone" }
            if result?["ignored"] != nil { outcome = "ignored" }
            if result?["companionOf"] != nil { outcome = "companion" }
            if outcome == "failed", let id = recordingID {
                detail = (try? client.call(StenoMethods.recordingsGet, RecordingReferenceParams(id: id)))?.failureReason ?? ""
            }
            counts[outcome, default: 0] += 1
            if ["failed", JobState.dead.rawValue, JobState.cancelled.rawValue].contains(outcome) {
                failed.append(detail.isEmpty ? "\(path) (\(outcome))" : "\(path) (\(detail))")
            }
            table.add([path, outcome, recordingID.map(String.init) ?? "-", detail])
        }
        Output.print(Output.json(jobs.map(\.job)), table: table, format: global.format)
        let failedFiles = failed.count
        for job in linking where job.state != .succeeded {
            failed.append("link job \(job.id) (\(job.lastError ?? job.state.rawValue))")
        }
        let failedLinks = failed.count - failedFiles
        if global.format.isHuman {
            Output.say("\n" + counts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", "))
            if !linking.isEmpty { Output.say(Self.linkingSummary(linking, recordings: linkedHere)) }
        }
        // Name what failed: "2 file(s) failed", "1 link job(s) failed", or both.
        let parts = [failedFiles > 0 ? "\(failedFiles) file(s)" : nil, failedLinks > 0 ? "\(failedLinks) link job(s)" : nil].compactMap { $0 }
        try JobWaiting.requireSuccess(failed, saying: { _ in parts.joined(separator: " and ") + " failed" })
    }

    /// "linking: 2 of 2 link job(s) done; 12 recordings: 9 linked, 2 unlinked, 1 ambiguous":
    /// how `recordings` (this command's) stand, as their link jobs reported them (`"links"` in
    /// the results: a job may have linked other files along with these).
    static func linkingSummary(_ jobs: [Job], recordings: Set<Int64>) -> String {
        let succeeded = jobs.filter { $0.state == .succeeded }.count
        var states: [String: Int] = [:]
        var reported = Set<Int64>()
        for job in jobs where job.state == .succeeded {
            guard let links = job.result.flatMap({ try? JSONValue.parse($0) })?["links"]?.objectValue else { continue }
            for (key, state) in links {
                guard let id = Int64(key), recordings.contains(id), let state = state.stringValue, reported.insert(id).inserted else { continue }
                states[state, default: 0] += 1
            }
        }
        let done = "linking: \(succeeded) of \(jobs.count) link job(s) done"
        guard !reported.isEmpty else { return done }
        let order = [LinkState.linked, .unlinked, .ambiguous, .pending, .orphaned].map(\.rawValue)
        let known = order.compactMap { state in states[state].map { "\($0) \(state)" } }
        let others = states.filter { !order.contains($0.key) }.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
        return done + "; \(reported.count) recording(s): " + (known + others).joined(separator: ", ")
    }
}
