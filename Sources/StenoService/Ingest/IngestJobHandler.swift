import Foundation
import StenoAPI
import StenoCore

/// The `ingest` job: reads one inbox path into the catalog. Idempotent, so running it twice
/// (after a crash) leaves one recording.
struct IngestJobHandler: JobHandler {
    static let kind = "ingest"

    let ingestor: RecordingIngestor
    let queue: JobQueue

    var kind: String { Self.kind }

    /// The job for a path; the unique key keeps one live job per path.
    static func draft(path: String, priority: Int = JobPriority.normal) -> JobDraft {
        JobDraft(
            kind: kind, payload: JSONValue.object(["path": .string(path)]).serializedString, priority: priority,
            uniqueKey: "ingest:" + path)
    }

    func run(_ job: Job, context: JobContext) async throws -> JobOutcome {
        let path = try Self.path(of: job)
        let outcome: RecordingIngestor.Outcome
        do {
            outcome = try await ingestor.ingest(relativePath: path)
        } catch let error as IngestError {
            throw JobError.permanent(error.description)
        }
        return try await finish(job, path: path, outcome: outcome, context: context)
    }

    /// The path a job's payload names.
    static func path(of job: Job) throws(JobError) -> String {
        guard let path = (try? JSONValue.parse(job.payload))?["path"]?.stringValue else {
            throw JobError.permanent("the ingest payload has no \"path\": \(job.payload)")
        }
        return path
    }

    /// The job's result for what ingesting its path did; a sidecar's recordings are queued
    /// to be read again.
    func finish(_ job: Job, path: String, outcome: RecordingIngestor.Outcome, context: JobContext) async throws -> JobOutcome {
        let result: JSONValue
        switch outcome {
        case .recorded(let recording):
            Self.noteFailure(of: recording, path: path, context: context)
            try await queueLinking([recording], priority: job.priority)
            return .succeeded(result: Self.result(for: recording))
        case .gone(let recording):
            result = ["gone": true, "recording": recording.map { .int($0.id) } ?? .null]
        case .ignored(let reason):
            result = ["ignored": .string(reason)]
        case .belongsTo(let recordings):
            // A sidecar or transcript: read its recordings again so they pick it up.
            _ = try await queue.enqueue(recordings.map { Self.draft(path: $0, priority: job.priority) })
            result = ["companionOf": .array(recordings.map { .string($0) })]
        }
        return .succeeded(result: result.serializedString)
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
