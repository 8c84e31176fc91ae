import Foundation
import StenoAPI
import StenoCore

/// The `ingest` job: reads inbox paths into the catalog — one (`{"path": P}`, one live job
/// per path) or a batch of files found together (`{"paths": [P, …]}`).
enum IngestJob: JobKind {
    static let name = "ingest"

    /// `{"path": P}` or `{"paths": [P, …]}`: paths relative to the inbox.
    struct Payload: Codable, Sendable, Hashable {
        /// The one file of a job for one.
        var path: String?
        /// The files of a job for many.
        var paths: [String]?

        /// The paths named.
        ///
        /// - Throws: `JobError.permanent` when the payload names none.
        func filePaths() throws(JobError) -> [String] {
            if let path { return [path] }
            if let paths, !paths.isEmpty { return paths }
            throw JobError.permanent("the ingest payload names no \"path\" or \"paths\"")
        }
    }

    /// What became of the job's files: one file's entry, or `{"files": [entry, …]}`. A JSON
    /// value because an entry's keys depend on what the file was (a recording, gone, ignored,
    /// a sidecar…).
    typealias Result = JSONValue
}

/// Runs `ingest` jobs: a folder of thousands of files costs a few job rows, not one each
/// (``pathsPerJob`` paths a job). Idempotent, so running a job twice (after a crash) leaves one
/// recording per content. Claimed jobs run as one pipeline: read their files, plan one commit
/// (``IngestPlan``), write it in one transaction.
struct IngestJobHandler: JobHandler {
    /// Paths in one job of many files.
    static let pathsPerJob = 32

    let ingestor: RecordingIngestor
    let queue: JobQueue

    /// The job for a path; the unique key keeps one live job per path.
    static func draft(path: String, priority: Int = JobPriority.normal) throws -> JobDraft {
        try IngestJob.draft(IngestJob.Payload(path: path), priority: priority, uniqueKey: "ingest:" + path)
    }

    /// How long a file is left alone when the daemon ran out of descriptors or memory reading it.
    static let exhaustionPause: TimeInterval = 60

    /// How long a large file waits for a share of the workers (``LargeReadShare``) before it is
    /// tried again: short, as the share is usually free again within seconds.
    static let deferralPause: TimeInterval = 5

    /// A job reading `path` again `after` seconds: for a file whose job used its last attempt
    /// while the daemon was exhausted, or a large file waiting for a share of the workers.
    /// Without the unique key: the job giving it up still holds that key until it completes in
    /// the same transaction.
    static func postponedDraft(path: String, priority: Int, now: Date, after pause: TimeInterval) throws -> JobDraft {
        var draft = try IngestJob.draft(IngestJob.Payload(path: path), priority: priority, uniqueKey: nil)
        draft.runAt = now.addingTimeInterval(pause)
        return draft
    }

    /// The job for paths found together (a lone path gets its own job, with its unique key).
    static func draft(paths: [String], priority: Int = JobPriority.normal) throws -> JobDraft {
        guard paths.count > 1 else { return try draft(path: paths.first ?? "", priority: priority) }
        return try IngestJob.draft(IngestJob.Payload(paths: paths), priority: priority)
    }

    /// Paths found together, ``pathsPerJob`` a job.
    static func chunks(_ paths: [String]) -> [[String]] {
        stride(from: 0, to: paths.count, by: pathsPerJob).map { Array(paths[$0..<min($0 + pathsPerJob, paths.count)]) }
    }

    /// The jobs for paths found together.
    static func drafts(paths: [String], priority: Int = JobPriority.normal) throws -> [JobDraft] {
        try chunks(paths).map { try draft(paths: $0, priority: priority) }
    }

    /// The paths a job's payload names.
    static func paths(of job: Job) throws(JobError) -> [String] {
        try IngestJob.payload(of: job).filePaths()
    }
}
