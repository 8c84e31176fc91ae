#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Foundation
import StenoAPI
import StenoCore
import StenoMedia
import StenoTesting

/// `steno-bench ingest`: files per second from drop to `ready` through a real daemon,
/// beside `sha256sum` over the same files (the read-and-hash floor) and the parse rate of
/// Steno's parsers alone (and tinytag/mutagen when installed), in the same run.
struct IngestBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest",
        abstract: "Drop-to-ready rate vs. sha256sum, and parse rate (targets: ≥50% of sha256sum; parse ≥20,000 files/s).")

    @Option(help: "Files in the corpus.") var files = 2000
    @Option(help: "Where the generated corpus is kept between runs.") var corpus = "/tmp/steno-bench-ingest-corpus"
    @Option(help: "The daemon's settle interval in seconds for the run.") var settle = 0.2
    @Option(help: "Parse passes over the corpus (the best is reported).") var passes = 5
    @Option(help: "The daemon's job workers for the run.") var workers = 2

    func run() throws {
        let paths = try Self.prepareCorpus(in: corpus, count: files)
        let bytes = paths.reduce(Int64(0)) { $0 + Int64((try? FileManager.default.attributesOfItem(atPath: $1)[.size] as? NSNumber)?.int64Value ?? 0) }
        print("corpus: \(paths.count) distinct files, \(bytes / 1024) KiB, 7 containers\n")

        // 1. The floor: sha256sum reads and hashes every file (one process, warm cache).
        _ = try Self.shell(["sh", "-c", "cat \(corpus)/variants/rec-* > /dev/null"])
        let shaStart = Date()
        let sha = try Self.shell(["sh", "-c", "cd \(corpus)/variants && ls | xargs sha256sum > /dev/null"])
        let shaSeconds = Date().timeIntervalSince(shaStart)
        guard sha.status == 0 else { throw TestDaemonError("sha256sum failed: \(sha.output)") }
        let shaRate = Double(paths.count) / shaSeconds

        // 2. Parsing alone, in process.
        var best = Double.infinity
        var failures = 0
        for _ in 0..<max(1, passes) {
            let start = Date()
            failures = 0
            for path in paths where (try? MediaProbe.probe(path: path)) == nil { failures += 1 }
            best = min(best, Date().timeIntervalSince(start))
        }
        let parseRate = Double(paths.count) / best

        // 3. Other parsers on the same corpus, when present.
        var others: [(String, Double)] = []
        for (module, call) in [("tinytag", "tinytag.TinyTag.get(p).duration"), ("mutagen", "mutagen.File(p).info.length")] {
            let code = """
                import sys, time, glob
                import \(module)
                paths = sorted(glob.glob(sys.argv[1] + '/variants/rec-*'))[:int(sys.argv[2])]
                best = 1e9
                for _ in range(3):
                    t = time.perf_counter()
                    for p in paths:
                        try: \(call)
                        except Exception: pass
                    best = min(best, time.perf_counter() - t)
                print(len(paths) / best)
                """
            let result = try Self.shell(["python3", "-c", code, corpus, String(files)])
            if result.status == 0, let rate = Double(result.output.trimmingCharacters(in: .whitespacesAndNewlines)) {
                others.append((module, rate))
            }
        }

        // 4. End to end, once per way of dropping: time until every file is a catalogued
        // recording, and until the queue is empty (linking included).
        var runs: [(DropMethod, EndToEnd)] = []
        for method in drops {
            runs.append((method, try endToEnd(paths, method: method)))
        }

        func row(_ cells: [String]) { print(cells.map { $0.padding(toLength: 34, withPad: " ", startingAt: 0) }.joined()) }
        print("load before the runs: \(Self.loadAverage())")
        row(["measure", "files/s", "vs sha256sum"])
        row(["sha256sum (floor)", String(format: "%.0f", shaRate), "100%"])
        for (method, run) in runs {
            row(["stenod drop (\(method.rawValue)) → ready", String(format: "%.0f", run.readyRate), String(format: "%.0f%%", run.readyRate / shaRate * 100)])
            row(["  … and linked (queue empty)", String(format: "%.0f", run.drainedRate), String(format: "%.0f%%", run.drainedRate / shaRate * 100)])
        }
        row(["Steno parsers alone", String(format: "%.0f", parseRate), String(format: "%.1f×", parseRate / shaRate)])
        for (name, rate) in others {
            row(["\(name) (python)", String(format: "%.0f", rate), String(format: "Steno is %.1f× faster", parseRate / rate)])
        }
        print("")
        for (method, run) in runs {
            print(
                "end to end (\(method.rawValue)): \(run.ready) ready, \(run.failed) failed in \(String(format: "%.3f", run.readySeconds)) s "
                    + "(dropping took \(String(format: "%.3f", run.dropSeconds)) s, the last ready "
                    + "\(String(format: "%.3f", run.readySeconds - run.dropSeconds)) s after it ended); "
                    + "queue empty after \(String(format: "%.3f", run.drainedSeconds)) s (settle interval \(settle) s, "
                    + "\(method == .mv ? "already over for files written before" : "waited for by every new file"), \(workers) workers)")
        }
        if failures > 0 { print("parse failures: \(failures)") }
        for (method, run) in runs {
            let ratio = run.readyRate / shaRate
            switch method {
            case .mv:
                print(String(format: "drop (mv) → ready: %.0f%% of sha256sum (target ≥50%%): %@", ratio * 100, ratio >= 0.5 ? "PASS" : "FAIL"))
            case .cp:
                // Writing the files takes cp longer than sha256sum takes to read them, and every
                // new file waits the settle interval: this run measures cp, not the daemon.
                let copyRate = Double(run.ready) / max(0.001, run.dropSeconds)
                print(String(format: "drop (cp) → ready: %.0f%% of sha256sum, bound by cp itself (it delivered %.0f files/s, %.0f%% of "
                             + "sha256sum); the last file was ready %.3f s after cp ended (settle interval %.1f s): not judged",
                             ratio * 100, copyRate, copyRate / shaRate * 100, run.readySeconds - run.dropSeconds, settle))
            }
        }
        print(String(format: "parse alone: %.0f files/s (target ≥20,000): %@", parseRate, parseRate >= 20_000 ? "PASS" : "FAIL"))
        print("load after the runs: \(Self.loadAverage())")
    }

    /// How files arrive in the inbox.
    enum DropMethod: String, ExpressibleByArgument, CaseIterable {
        /// Renamed in from a folder on the same file system, keeping the mtime they were written
        /// with (how sync tools and `mv` deliver).
        case mv
        /// Copied in by `cp`, so every file is new (the copy's own time and the whole settle
        /// interval are part of the run).
        case cp
    }

    @Option(help: "How files are dropped: mv, cp, or both (repeat the option).") var drop: [DropMethod] = [.mv, .cp]

    var drops: [DropMethod] { drop.isEmpty ? DropMethod.allCases : drop }

    /// One end-to-end run's figures.
    struct EndToEnd {
        var ready: Int64
        var failed: Int
        /// How long dropping the files took (the renames, or cp).
        var dropSeconds: Double
        var readySeconds: Double
        var drainedSeconds: Double
        var readyRate: Double { Double(ready) / readySeconds }
        var drainedRate: Double { Double(ready) / drainedSeconds }
    }

    /// Drops `paths` into a fresh daemon's inbox and times until all are catalogued (`ready`
    /// or `failed`), then until no job is left (the linking queued after ingest).
    func endToEnd(_ paths: [String], method: DropMethod) throws -> EndToEnd {
        let daemon = try TestDaemon(config: "[watcher]\nsettle_seconds = \(settle)\n[jobs]\nworkers = \(workers)\n")
        defer { daemon.shutdown() }
        let client = try daemon.client()
        _ = try client.call(StenoMethods.usersAdd, UserAddParams(name: "bench"))
        let inbox = daemon.inboxDirectory + "/bench"
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        // Staged on the inbox's file system, so `mv` is a rename.
        let staging = daemon.root + "/staging"
        if method == .mv {
            try Self.stage(paths, in: staging)
        }
        let dropStart = Date()
        switch method {
        case .mv:
            try Self.moveStaged(paths, from: staging, into: inbox)
        case .cp:
            let copy = try Self.shell(["sh", "-c", "cd \(corpus)/variants && cp rec-* \(inbox)/"])
            guard copy.status == 0 else { throw TestDaemonError("cp failed: \(copy.output)") }
        }
        let dropSeconds = Date().timeIntervalSince(dropStart)
        let deadline = Date().addingTimeInterval(600)
        var ready: Int64 = 0
        var readySeconds: Double?
        var drainedSeconds = 0.0
        while Date() < deadline {
            let status = try client.call(StenoMethods.systemStatus)
            ready = status.counts["recordings"] ?? 0
            if ready >= Int64(paths.count) {
                if readySeconds == nil { readySeconds = Date().timeIntervalSince(dropStart) }
                if status.queueDepth == 0 {
                    drainedSeconds = Date().timeIntervalSince(dropStart)
                    break
                }
            }
            // Often enough for a 1% resolution, rarely enough not to slow the daemon down.
            usleep(10_000)
        }
        guard let readySeconds else { throw TestDaemonError("only \(ready) of \(paths.count) files were catalogued in 600 s") }
        let failed = try client.call(StenoMethods.recordingsList, RecordingListParams(status: .failed, limit: 1000)).items.count
        return EndToEnd(ready: ready, failed: failed, dropSeconds: dropSeconds, readySeconds: readySeconds, drainedSeconds: drainedSeconds)
    }

    /// The load averages, to judge how busy the shared machine was.
    static func loadAverage() -> String {
        (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
    }

    /// Copies `paths` into `staging` (on the inbox's file system, so moving them in is a rename)
    /// with the mtimes they were written with, as sync tools set them before renaming a file
    /// into place.
    static func stage(_ paths: [String], in staging: String) throws {
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true)
        for path in paths {
            let staged = staging + "/" + (path as NSString).lastPathComponent
            try FileManager.default.copyItem(atPath: path, toPath: staged)
            let written = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate]
            try FileManager.default.setAttributes([.modificationDate: written ?? Date()], ofItemAtPath: staged)
        }
    }

    /// Renames the staged copies of `paths` into `inbox`.
    static func moveStaged(_ paths: [String], from staging: String, into inbox: String) throws {
        for path in paths {
            let name = (path as NSString).lastPathComponent
            guard rename(staging + "/" + name, inbox + "/" + name) == 0 else {
                throw TestDaemonError("cannot move \(name) into the inbox: \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Generates the base files in `folder` (kept between runs) and `count` distinct variants
    /// of them; returns the variants' paths.
    static func prepareCorpus(in folder: String, count: Int) throws -> [String] {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Tests/Benchmarks/make-ingest-corpus.sh").path
        print("preparing the corpus in \(folder) (base files are reused between runs)…")
        let generation = try shell(["bash", script, folder])
        guard generation.status == 0 else { throw TestDaemonError("corpus generation failed (is ffmpeg installed?):\n\(generation.output)") }
        return try makeVariants(in: folder, count: count)
    }

    /// Copies of the base files with the marker's digits replaced by a serial number:
    /// distinct contents (so no deduplication) that parse like their base.
    static func makeVariants(in folder: String, count: Int) throws -> [String] {
        let bases = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix("base-") }.sorted()
        guard !bases.isEmpty else { throw TestDaemonError("no base files in \(folder)") }
        let marker = Array("STENOBENCH-".utf8)
        let variants = folder + "/variants"
        try? FileManager.default.removeItem(atPath: variants)
        try FileManager.default.createDirectory(atPath: variants, withIntermediateDirectories: true)
        var paths: [String] = []
        for index in 0..<count {
            let base = bases[index % bases.count]
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/" + base)))
            guard let at = bytes.indices.dropLast(marker.count + 5).first(where: { bytes[$0..<($0 + marker.count)].elementsEqual(marker) }) else {
                throw TestDaemonError("\(base) lacks the marker tag")
            }
            let digits = Array(String(format: "%06d", index).utf8)
            bytes.replaceSubrange((at + marker.count)..<(at + marker.count + 6), with: digits)
            let path = variants + "/rec-\(String(format: "%05d", index))-" + base.dropFirst("base-".count)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            paths.append(path)
        }
        return paths
    }

    static func shell(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let result = try ProcessRunner.run("/usr/bin/env", arguments, timeout: 3600)
        return (result.status, result.stdout + result.stderr)
    }
}
