#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StenoAPI
import StenoCore
import StenoTesting

/// Ingest through real daemons: one on SQLite, or several on one PostgreSQL database sharing
/// one inbox (one watches it, every daemon's workers ingest).
extension QueueBenchmark {
    /// One ingest run's figures.
    struct IngestRun {
        var readyRate: Double
        var drainedRate: Double
        /// CPU seconds per file of the daemons (on SQLite, the catalog's work included) and of
        /// the database server, from the drop until the queue was empty.
        var daemonCPUPerFile: Double
        var databaseCPUPerFile: Double
    }

    /// The daemons' configuration: the same settle interval and workers on every backend.
    func daemonConfig(database: String?) -> String {
        (database.map { "database = \"\($0)\"\n" } ?? "") + "[watcher]\nsettle_seconds = \(settle)\n[jobs]\nworkers = \(workers)\n"
    }

    /// Starts the backend's daemons on a fresh catalog and a fresh shared inbox, renames the
    /// staged corpus into the inbox, and times until every file is a catalogued recording, then
    /// until no job is left (linking included).
    /// The calls are blocking (the daemons run in processes of their own; nothing else runs in
    /// this one meanwhile).
    func ingestRun(on backend: Backend, paths: [String], cluster: PostgresCluster) async throws -> IngestRun {
        let folder = NSTemporaryDirectory() + "steno-bench-queue-inbox-" + UUID().uuidString
        let inbox = folder + "/inbox"
        try FileManager.default.createDirectory(atPath: inbox + "/bench", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var started: [TestDaemon] = []
        var databaseName: String?
        defer { started.forEach { $0.shutdown() } }
        switch backend {
        case .sqlite:
            started.append(try TestDaemon(config: daemonConfig(database: nil), inbox: inbox))
        case .postgres(let daemons):
            let database = try await cluster.createDatabase(prefix: "steno_bench_ingest")
            databaseName = database
            for _ in 0..<daemons { started.append(try TestDaemon(config: daemonConfig(database: cluster.url(database: database)), inbox: inbox)) }
        }
        let client = try started[0].client()
        _ = try client.call(StenoMethods.usersAdd, UserAddParams(name: "bench"))
        // On the inbox's file system, so dropping is a rename.
        let staging = folder + "/staging"
        try IngestBenchmark.stage(paths, in: staging)
        func daemonSeconds() -> Double { started.compactMap { $0.process.flatMap { ProcessCPU.seconds(pid: $0.processIdentifier) } }.reduce(0, +) }
        let daemonStart = daemonSeconds(), databaseStart = databaseName.map(ProcessCPU.databaseSeconds) ?? 0
        let dropStart = Date()
        try IngestBenchmark.moveStaged(paths, from: staging, into: inbox + "/bench")
        let deadline = Date().addingTimeInterval(600)
        var readySeconds: Double?
        while Date() < deadline {
            let status = try client.call(StenoMethods.systemStatus)
            if (status.counts["recordings"] ?? 0) >= Int64(paths.count) {
                if readySeconds == nil { readySeconds = Date().timeIntervalSince(dropStart) }
                if status.queueDepth == 0 { break }
            }
            // Each poll counts the catalog's tables: rarely enough not to load the database being
            // measured (a run of the default size lasts seconds).
            usleep(25_000)
        }
        let drainedSeconds = Date().timeIntervalSince(dropStart)
        let daemonCPU = daemonSeconds() - daemonStart, databaseCPU = (databaseName.map(ProcessCPU.databaseSeconds) ?? 0) - databaseStart
        guard let readySeconds, drainedSeconds < 600 else {
            throw TestDaemonError("\(backend): the \(paths.count) files were not ingested within 600 s:\n\(started[0].log.suffix(4000))")
        }
        let recordings = try client.call(StenoMethods.recordingsList, RecordingListParams(limit: 1000)).items
        let failed = recordings.filter { $0.status != .ready }.count
        guard failed == 0 else { throw TestDaemonError("\(backend): \(failed) recordings are not ready") }
        return IngestRun(
            readyRate: Double(paths.count) / readySeconds, drainedRate: Double(paths.count) / drainedSeconds,
            daemonCPUPerFile: daemonCPU / Double(paths.count), databaseCPUPerFile: databaseCPU / Double(paths.count))
    }
}
