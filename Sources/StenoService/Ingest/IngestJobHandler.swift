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
        guard let path = (try? JSONValue.parse(job.payload))?["path"]?.stringValue else {
            throw JobError.permanent("the ingest payload has no \"path\": \(job.payload)")
        }
        let outcome: RecordingIngestor.Outcome
        do {
            outcome = try await ingestor.ingest(relativePath: path)
        } catch let error as IngestError {
            throw JobError.permanent(error.description)
        }
        let result: JSONValue
        switch outcome {
        case .recorded(let recording):
            result = ["recording": .int(recording.id), "status": .string(recording.status.rawValue)]
            if recording.status == .ready {
                // Its meeting is looked for next (again after a sidecar changed its start time).
                _ = try await queue.enqueue(LinkRecordingJobHandler.draft(recordingID: recording.id, priority: job.priority))
            }
            if recording.status == .failed {
                context.logger.notice("recording failed: \(recording.failureReason ?? "")", metadata: ["path": .string(path)])
            }
        case .gone(let recording):
            result = ["gone": true, "recording": recording.map { .int($0.id) } ?? .null]
        case .ignored(let reason):
            result = ["ignored": .string(reason)]
        case .belongsTo(let recordings):
            // A sidecar or transcript: read its recordings again so they pick it up.
            for recording in recordings {
                _ = try await queue.enqueue(Self.draft(path: recording, priority: job.priority))
            }
            result = ["companionOf": .array(recordings.map { .string($0) })]
        }
        return .succeeded(result: result.serializedString)
    }
}
