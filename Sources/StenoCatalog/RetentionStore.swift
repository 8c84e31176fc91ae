import Foundation
import StenoCore

/// What the retention run reads, and the legal holds that exempt recordings from it.
public protocol RetentionStore: Sendable {
    /// Recordings aged (made, else catalogued) before `cutoff`, neither held nor marked for
    /// deletion, ascending by id from `afterID`, at most `limit`, with their owners and paths.
    func retentionCandidates(agedBefore cutoff: Date, afterID: Int64, limit: Int) async throws -> [RetentionCandidate]
    /// Holds the recordings of `ids` that exist (a hold already there is kept as it was);
    /// returns them, ascending.
    func hold(_ ids: [Int64], by holder: String, reason: String?, now: Date) async throws -> [Int64]
    /// Lifts the holds of `ids`; returns the recordings that were held, ascending.
    func releaseHolds(_ ids: [Int64]) async throws -> [Int64]
    /// The holds on `ids` (every hold when nil), ascending by recording.
    func holds(ids: [Int64]?) async throws -> [RecordingHold]
}
