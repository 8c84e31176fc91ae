import Foundation
import StenoAPI
import StenoCore
import StenoStore

extension LinkRecordingJobHandler: BatchJobHandler {
    /// Recordings linked together: a folder dropped at once queues one `link` job per file,
    /// and one pass of the batch linker reads each owner's candidates once for all of them.
    var maxBatchSize: Int { 64 }

    /// Links the batch's recordings in one pass of the batch linker (manual links are left
    /// alone, as `run` leaves them); each job succeeds with its recording and the pass's
    /// count of changed links. A bad payload fails its own job only.
    func runBatch(_ claims: [ClaimedJob], context: JobContext) async -> [BatchItemOutcome] {
        var ids: [Int64?] = []
        ids.reserveCapacity(claims.count)
        for claim in claims {
            ids.append((try? JSONValue.parse(claim.job.payload))?["recording"]?.intValue)
        }
        let changed: Int
        do {
            changed = try await linker.link(recordingIDs: Array(Set(ids.compactMap { $0 })).sorted()).values.reduce(0, +)
        } catch {
            return claims.map { _ in .finished(.failure(error)) }
        }
        return zip(claims, ids).map { claim, id in
            guard let id else {
                return .finished(.failure(JobError.permanent("the link payload has no \"recording\": \(claim.job.payload)")))
            }
            let result: JSONValue = ["recording": .int(id), "batch": .int(Int64(claims.count)), "changedInBatch": .int(Int64(changed))]
            return .finished(.success(.succeeded(result: result.serializedString)))
        }
    }
}
