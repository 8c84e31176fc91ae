import Foundation
import StenoCore

extension IngestCommit {
    /// What a store completes once a commit's files are written: every held job with its
    /// entries and result, and the recordings stored ready (for `linking`).
    package struct Assembly {
        /// One end per job, in order (`.staleLease` for a job whose lease was not held).
        package var ends: [JobEnd]
        /// The held jobs to complete, with their results, in order.
        package var completions: [JobCompletion]
        /// The ids of the recordings stored ready, in the order they were stored.
        package var ready: [Int64]
        /// The completed jobs with their entries, for results written again.
        var completed: [(job: Job, entries: [Written])] = []

        /// Names the `link` job of the ready recordings in the results of the jobs that
        /// stored them (`"linkJob": ID` beside each such file's entry), so a client waiting
        /// for the ingest can follow the linking too.
        package mutating func noteLinkJob(_ id: Int64) {
            completions = completed.map { JobCompletion(claim: $0.job.claim, result: $0.job.result($0.entries, linkJob: id)) }
        }
    }

    /// Assembles the ends of a commit whose files were written: `written[i]` holds job `i`'s
    /// entries (nil for a stale job), with nil for each file it recorded, whose recording id
    /// comes next from `storedIDs` (in write order) and is read back from `recordings`.
    package func assemble(written: [[Written?]?], storedIDs: [Int64], recordings: [Int64: Recording]) throws -> Assembly {
        var assembly = Assembly(ends: Array(repeating: .staleLease, count: jobs.count), completions: [], ready: [])
        var stored = storedIDs.makeIterator()
        for (index, job) in jobs.enumerated() {
            guard let files = written[index] else { continue }
            let entries = try files.map { entry -> Written in
                if let entry { return entry }
                guard let id = stored.next(), let recording = recordings[id] else {
                    throw StoreError.failedPrecondition("a recording of job \(job.claim.job.id) was stored but cannot be read back")
                }
                if recording.status == .ready { assembly.ready.append(id) }
                return .recorded(recording)
            }
            assembly.completions.append(JobCompletion(claim: job.claim, result: job.result(entries)))
            assembly.completed.append((job, entries))
            assembly.ends[index] = .completed(entries)
        }
        return assembly
    }
}
