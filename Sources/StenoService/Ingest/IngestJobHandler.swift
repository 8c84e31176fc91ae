import Foundation
import StenoAPI
import StenoCore

/// The `ingest` job: reads inbox paths into the catalog — one (`{"path": P}`, one live job
/// per path) or a batch of files found together (`{"paths": [P, …]}`, up to ``pathsPerJob``),
/// so a folder of thousands of files costs a few job rows, not one each. Idempotent, so
/// running it twice (after a crash) leaves one recording per content.
struct IngestJobHandler: JobHandler {
    static let kind = "ingest"
    /// Paths in one job of many files.
    static let pathsPerJob = 32

    let ingestor: RecordingIngestor
    let queue: JobQueue

    var kind: String { Self.kind }

    /// The job for a path; the unique key keeps one live job per path.
    static func draft(path: String, priority: Int = JobPriority.normal) -> JobDraft {
        JobDraft(
            kind: kind, payload: JSONValue.object(["path": .string(path)]).serializedString, priority: priority,
            uniqueKey: "ingest:" + path)
    }

    /// The job for paths found together (a lone path gets its own job, with its unique key).
    static func draft(paths: [String], priority: Int = JobPriority.normal) -> JobDraft {
        guard paths.count > 1 else { return draft(path: paths.first ?? "", priority: priority) }
        return JobDraft(kind: kind, payload: JSONValue.object(["paths": .array(paths.map { .string($0) })]).serializedString, priority: priority)
    }

    /// Paths found together, ``pathsPerJob`` a job.
    static func chunks(_ paths: [String]) -> [[String]] {
        stride(from: 0, to: paths.count, by: pathsPerJob).map { Array(paths[$0..<min($0 + pathsPerJob, paths.count)]) }
    }

    /// The jobs for paths found together.
    static func drafts(paths: [String], priority: Int = JobPriority.normal) -> [JobDraft] {
        chunks(paths).map { draft(paths: $0, priority: priority) }
    }

    /// The paths a job's payload names.
    static func paths(of job: Job) throws(JobError) -> [String] {
        let payload = try? JSONValue.parse(job.payload)
        if let path = payload?["path"]?.stringValue { return [path] }
        if case .array(let items)? = payload?["paths"] {
            let paths = items.compactMap(\.stringValue)
            if paths.count == items.count, !paths.isEmpty { return paths }
        }
        throw JobError.permanent("the ingest payload names no \"path\" or \"paths\": \(job.payload)")
    }

    func run(_ job: Job, context: JobContext) async throws -> JobOutcome {
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
        // Many files, one at a time (the pool's batches take the faster path, `runBatch`).
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
        return .succeeded(result: JSONValue.object(["files": .array(files)]).serializedString)
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
    func finish(_ job: Job, path: String, outcome: RecordingIngestor.Outcome, context: JobContext) async throws -> JobOutcome {
        if case .recorded(let recording) = outcome {
            Self.noteFailure(of: recording, path: path, context: context)
            try await queueLinking([recording], priority: job.priority)
            return .succeeded(result: Self.result(for: recording))
        }
        // A single file's job result is the file's entry without the path its payload names.
        var entry: [String: JSONValue] = [:]
        if case .object(let members) = try await fileResult(outcome, path: path, priority: job.priority) { entry = members }
        entry["path"] = nil
        return .succeeded(result: JSONValue.object(entry).serializedString)
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
            _ = try await queue.enqueue(recordings.map { Self.draft(path: $0, priority: priority) })
            return ["path": .string(path), "companionOf": .array(recordings.map { .string($0) })]
        }
    }

    /// The result of a job that catalogued a recording.
    static func result(for recording: Recording) -> String {
        let result: JSONValue = ["recording": .int(recording.id), "status": .string(recording.status.rawValue)]
        return result.serializedString
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
            var draft = LinkRecordingJobHandler.draft(recordingIDs: ready, priority: priority)
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
