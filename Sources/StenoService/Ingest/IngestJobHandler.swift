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
/// recording per content.
struct IngestJobHandler: JobHandler {
    /// Paths in one job of many files.
    static let pathsPerJob = 32

    let ingestor: RecordingIngestor
    let queue: JobQueue

    /// The job for a path; the unique key keeps one live job per path.
    static func draft(path: String, priority: Int = JobPriority.normal) throws -> JobDraft {
        try IngestJob.draft(IngestJob.Payload(path: path), priority: priority, uniqueKey: "ingest:" + path)
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

    /// Ingests one job's files one at a time (the pool runs jobs together through
    /// `run(_:context:)`).
    func run(_ job: Job, context: JobContext) async throws -> JobOutcome<JSONValue> {
        let paths = try Self.paths(of: job)
        guard paths.count > 1 else {
            let path = paths[0]
            let outcome: RecordingIngestor.Outcome
            do {
                outcome = try await ingestor.ingest(relativePath: path, lastAttempt: job.attempts >= job.maxAttempts)
            } catch let error as IngestError {
                throw JobError.permanent(error.description)
            }
            return try await finish(job, path: path, outcome: outcome, context: context)
        }
        // Many files, one at a time (the pool takes the faster path, `run(_:context:)`).
        var files: [JSONValue] = []
        for path in paths {
            do {
                let outcome = try await ingestor.ingest(relativePath: path)
                if case .recorded(let recording) = outcome {
                    Self.noteFailure(of: recording, path: path, context: context)
                    try await queueLinking([recording], priority: job.priority)
                }
                files.append(try await fileResult(outcome, path: path, priority: job.priority))
            } catch {
                files.append(try await splitOut(path, priority: job.priority, because: error, context: context))
            }
        }
        return .succeeded(JSONValue.object(["files": .array(files)]))
    }

    /// A file of a many-file job that failed: queued as a job of its own, which retries (and
    /// gives up) on its own like any single file. Returns the file's entry in the job's result.
    func splitOut(_ path: String, priority: Int, because error: any Error, context: JobContext) async throws -> JSONValue {
        context.logger.notice("file failed in a batch; retrying it on its own: \(error)", metadata: ["path": .string(path)])
        let job = try await queue.enqueue(Self.draft(path: path, priority: priority)).job
        return ["path": .string(path), "retriedAs": .int(job.id)]
    }

    /// The job's result for what ingesting its path did; a sidecar's recordings are queued
    /// to be read again.
    func finish(_ job: Job, path: String, outcome: RecordingIngestor.Outcome, context: JobContext) async throws -> JobOutcome<JSONValue> {
        if case .recorded(let recording) = outcome {
            Self.noteFailure(of: recording, path: path, context: context)
            try await queueLinking([recording], priority: job.priority)
            return .succeeded(Self.result(for: recording))
        }
        // A single file's job result is the file's entry without the path its payload names.
        var entry: [String: JSONValue] = [:]
        if case .object(let members) = try await fileResult(outcome, path: path, priority: job.priority) { entry = members }
        entry["path"] = nil
        return .succeeded(JSONValue.object(entry))
    }

    /// What ingesting one path did, as an entry of a job's result (`path` included); a
    /// sidecar's recordings are queued to be read again.
    func fileResult(_ outcome: RecordingIngestor.Outcome, path: String, priority: Int) async throws -> JSONValue {
        switch outcome {
        case .recorded(let recording):
            return ["path": .string(path), "recording": .int(recording.id), "status": .string(recording.status.rawValue)]
        case .gone(let recording):
            return ["path": .string(path), "gone": true, "recording": recording.map { .int($0.id) } ?? .null]
        case .ignored(let reason):
            return ["path": .string(path), "ignored": .string(reason)]
        case .belongsTo(let recordings):
            // A sidecar or transcript: read its recordings again so they pick it up.
            _ = try await queue.enqueue(recordings.map { try Self.draft(path: $0, priority: priority) })
            return ["path": .string(path), "companionOf": .array(recordings.map { .string($0) })]
        }
    }

    /// The result of a job that catalogued a recording.
    static func result(for recording: Recording) -> JSONValue {
        ["recording": .int(recording.id), "status": .string(recording.status.rawValue)]
    }

    /// Queues the linking of the ready recordings: their meetings are looked for next (again
    /// when a sidecar changed a start time). Should this be lost to a crash, the nightly
    /// revalidation links recordings that have no link yet.
    func queueLinking(_ recordings: [Recording], priority: Int) async throws {
        let all = linkingDrafts(priority: priority)(recordings)
        guard !all.isEmpty else { return }
        _ = try await queue.enqueue(all)
    }

    /// The jobs that follow catalogued recordings: one `link` job for the ready ones (a batch
    /// of files dropped together is linked in one pass, and costs one job, not one per file).
    func linkingDrafts(priority: Int) -> @Sendable ([Recording]) -> [JobDraft] {
        let maxAttempts = queue.defaultMaxAttempts
        return { recordings in
            let ready = Array(Set(recordings.filter { $0.status == .ready }.map(\.id))).sorted()
            guard !ready.isEmpty else { return [] }
            guard var draft = try? LinkRecordingJobHandler.draft(recordingIDs: ready, priority: priority) else { return [] }
            if draft.maxAttempts == nil { draft.maxAttempts = maxAttempts }
            return [draft]
        }
    }

    /// Logs why a recording failed, for the operator.
    static func noteFailure(of recording: Recording, path: String, context: JobContext) {
        if recording.status == .failed {
            context.logger.notice("recording failed: \(recording.failureReason ?? "")", metadata: ["path": .string(path)])
        }
    }
}
