import Foundation
import Logging
import StenoAPI
import StenoCatalog
import StenoCore

@testable import StenoService

extension RecordingIngestor {
    /// What ingesting one path did, as the tests look at it.
    enum Outcome: Sendable, Equatable {
        /// The recording as catalogued (ready or failed).
        case recorded(Recording)
        /// The file is gone; its recording, if any, as it is now.
        case gone(Recording?)
        /// Not something to catalogue, with why.
        case ignored(String)
        /// A sidecar or transcript of these recording paths.
        case belongsTo([String])
    }

    /// Ingests one path as the daemon does: a job of one file, claimed and run through the
    /// pipeline as a batch of one (with any ingest jobs already queued, e.g. a sidecar's
    /// recordings). Throws what fails the job.
    func ingest(relativePath: String, lastAttempt: Bool = false) async throws -> Outcome {
        try await IngestJobHandler(ingestor: self, queue: JobQueue(store: store)).ingestAlone(relativePath, lastAttempt: lastAttempt)
    }
}

extension IngestJobHandler {
    /// Queues a job for `path` (of one attempt on the `lastAttempt`), claims it with the ingest
    /// jobs already queued, runs them through the pipeline and tells what became of `path`.
    func ingestAlone(_ path: String, lastAttempt: Bool = false) async throws -> RecordingIngestor.Outcome {
        // No unique key: a job of an earlier call that failed is still leased.
        var draft = JobDraft(kind: Self.kind, payload: JSONValue.object(["path": .string(path)]).serializedString)
        if lastAttempt { draft.maxAttempts = 1 }
        let job = try await queue.enqueue(draft).job
        let claims = try await ingestor.store.claim(
            workerID: "test/1/1", kinds: [Self.kind], limits: [Self.kind: 1000], leaseDuration: .seconds(60), now: Date())
        guard let index = claims.firstIndex(where: { $0.job.id == job.id }) else { throw TestFailure("job \(job.id) was not claimed") }
        let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        switch await ingest(claims, context: JobContext(logger: quiet, workerID: "test/1/1"))[index] {
        case .failed(let error):
            throw error
        case .written(.staleLease):
            throw TestFailure("job \(job.id) lost its lease")
        case .written(.completed(let written)):
            switch written.first {
            case .recorded(let recording): return .recorded(recording)
            case .gone(let recording): return .gone(recording)
            case .ignored(let reason): return .ignored(reason)
            case .companion(let recordings): return .belongsTo(recordings)
            case .retried, nil: throw TestFailure("job \(job.id) wrote \(written)")
            }
        }
    }
}
