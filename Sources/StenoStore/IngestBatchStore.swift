import Foundation
import StenoCore

/// The outcome of reading one file, to store on behalf of the claimed `ingest` job that read it.
public struct FencedIngest: Sendable, Hashable {
    /// The claim of the job that read the file; its fencing token is checked. Several items
    /// may share one claim (a job of many files).
    public var claim: ClaimedJob
    /// What reading the file produced.
    public var record: IngestRecord

    /// An outcome fenced by `claim`.
    public init(claim: ClaimedJob, record: IngestRecord) {
        self.claim = claim
        self.record = record
    }
}

/// What storing one fenced ingest did.
public enum FencedIngestResult: Sendable, Hashable {
    /// Stored and its job completed: the recording as catalogued.
    case recorded(Recording)
    /// The claim was stale (the lease expired and the job was requeued or taken over): neither
    /// the outcome nor the completion was written.
    case staleLease
}

/// A store that records ingest outcomes and completes their jobs in the same transaction, so
/// a batch of files costs one write: the outcome exists exactly when its job succeeded.
public protocol IngestBatchStore: RecordingStore, JobQueueStore {
    /// Stores each outcome (as `recordIngest(_:)` would), completes each job once with
    /// `jobResult(claim, recordings)` (its items' recordings, in item order) and enqueues
    /// `followUps(recordings)` once for every recording stored (a job with a live unique key
    /// adds nothing), all in one transaction. Items are fenced by their claims: those of a stale
    /// claim write nothing and are `.staleLease`, without affecting the others. Returns one
    /// result per item, in order. Enqueued follow-ups wake no worker: the caller does.
    ///
    /// - Throws: `StoreError.invalid` when a job result is not JSON or a follow-up is not a
    ///   valid draft (then nothing is written).
    func recordIngests(
        _ items: [FencedIngest], jobResult: @escaping @Sendable (ClaimedJob, [Recording]) -> String?,
        followUps: @escaping @Sendable ([Recording]) -> [JobDraft], now: Date
    ) async throws -> [FencedIngestResult]
}
