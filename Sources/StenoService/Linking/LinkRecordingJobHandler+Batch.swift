import Foundation
import StenoAPI
import StenoCore
import StenoStore

extension LinkRecordingJobHandler: BatchJobHandler {
    /// Recordings linked together: files changed one by one queue a `link` job each, and one
    /// pass of the batch linker reads each owner's candidates once for all of them.
    var maxBatchSize: Int { 64 }

    /// Links the batch's recordings in one pass of the batch linker (manual links are left
    /// alone, as `run` leaves them); each job succeeds with its recording and the pass's
    /// count of changed links. A bad payload fails its own job only.
    func runBatch(_ claims: [ClaimedJob], context: JobContext) async -> [BatchItemOutcome] {
        let ids = claims.map { Self.recordingIDs(of: $0.job.payload) }
        let changed: Int
        do {
            changed = try await linker.link(recordingIDs: Array(Set(ids.compactMap { $0 }.joined())).sorted()).values.reduce(0, +)
        } catch {
            return claims.map { _ in .finished(.failure(error)) }
        }
        return zip(claims, ids).map { claim, ids in
            guard let ids else {
                return .finished(.failure(JobError.permanent("the link payload names no \"recording\" or \"recordings\": \(claim.job.payload)")))
            }
            let result: JSONValue = [
                "recordings": .int(Int64(ids.count)), "batch": .int(Int64(claims.count)), "changedInBatch": .int(Int64(changed)),
            ]
            return .finished(.success(.succeeded(result: result.serializedString)))
        }
    }
}
