import Foundation
import StenoAPI
import StenoCatalog
import StenoCore

extension IngestJobHandler {
    /// Files read and stored together: large enough that one write covers many files, small
    /// enough that two workers share a burst and the first recordings appear soon. Measured
    /// (release, 2,000 files dropped at once, 2 workers): 64 → 590 ms from enqueue to the last
    /// recording, 256 → 310 ms, 512 → 190–310 ms.
    static let filesPerBatch = 256

    /// Jobs claimed together: jobs of many files hold ``pathsPerJob`` each, so a batch holds at
    /// most ``filesPerBatch`` files (lone files are batched a few at a time).
    var maxBatchSize: Int { Self.filesPerBatch / Self.pathsPerJob }

    /// Runs the claimed jobs through the pipeline (see ``ingest(_:context:)``); a job the store
    /// wrote (or found stale) is `.recorded`, a job that failed is left to the pool.
    func run(_ attempts: [JobAttempt<IngestJob>], context: JobContext) async throws -> [JobOutcome<JSONValue>] {
        await ingest(attempts.map(\.claim), context: context).map { end in
            switch end {
            case .written: return .recorded
            case .failed(let error): return .failed(error)
            }
        }
    }

    /// How one claimed job ended.
    enum End: Sendable {
        /// Written by the store with its completion (or found stale, writing nothing).
        case written(IngestCommit.JobEnd)
        /// Not written: the job fails with this (a `JobError.permanent` for bad input).
        case failed(any Error)
    }

    /// The ingest pipeline: reads every file of the claimed jobs together (hashing and parsing
    /// concurrently), turns the readings into one commit (``IngestPlan``), and has the store
    /// write it in one transaction, each job fenced by its claim. One end per claim, in order.
    func ingest(_ claims: [ClaimedJob], context: JobContext) async -> [End] {
        let paths = claims.map { claim in Result { () throws(JobError) in try Self.paths(of: claim.job) } }
        let files = paths.indices.flatMap { index in ((try? paths[index].get()) ?? []).map { (claim: index, path: $0) } }
        // A job of one file on its last attempt catalogues a passing failure rather than vanish;
        // a file of a job of many is split out into a job of its own first.
        let lastAttempt = Set(
            claims.indices.flatMap { index -> [String] in
                guard let own = try? paths[index].get(), own.count == 1, claims[index].job.attempts >= claims[index].job.maxAttempts else {
                    return []
                }
                return own
            })
        let now = Date()
        let readings = await ingestor.read(files.map(\.path), now: now, lastAttempt: lastAttempt)
        var readingsOfClaim = Array(repeating: [Result<RecordingIngestor.Reading, any Error>](), count: claims.count)
        for (file, reading) in zip(files, readings) { readingsOfClaim[file.claim].append(reading) }
        let plan = IngestPlan(
            claims.indices.map { IngestPlan.ClaimReading(claim: claims[$0], paths: paths[$0], readings: readingsOfClaim[$0]) },
            linkMaxAttempts: queue.defaultMaxAttempts, now: now)
        for (path, error) in plan.splitOut {
            context.logger.notice("file failed in a batch; retrying it on its own: \(error)", metadata: ["path": .string(path)])
        }
        for (path, error) in plan.postponed {
            context.logger.warning(
                "the daemon ran out of descriptors or memory reading a file on its last attempt (\(error)); reading it again in \(Int(Self.exhaustionPause)) s",
                metadata: ["path": .string(path)])
        }
        for (path, reason) in plan.deferred {
            context.logger.debug("large file read later: \(reason)", metadata: ["path": .string(path)])
        }
        let written = await write(plan.commit, now: now, context: context)
        return plan.jobs.map { job in
            switch job {
            case .success(let index): return written[index]
            case .failure(let error): return .failed(error)
            }
        }
    }

    /// Writes the commit in one store call; should that fail as a whole, job by job, and a job
    /// of many that fails alone once more with its files split out into jobs of their own (so a
    /// file failing alone fails alone). One end per job of the commit.
    private func write(_ commit: IngestCommit, now: Date, context: JobContext) async -> [End] {
        guard !commit.jobs.isEmpty else { return [] }
        do {
            return note(try await ingestor.store.commitIngest(commit, now: now), of: commit, context: context)
        } catch {
            // An unreachable catalog fails every job alike: splitting would only wait for it
            // once per job. The worker gives the jobs back to run again once it is back.
            if CatalogOutage.isUnreachable(error) { return commit.jobs.map { _ in .failed(error) } }
            guard commit.jobs.count > 1 || commit.jobs.first?.listsFiles == true else { return [.failed(error)] }
            context.logger.warning("could not store the batch at once (\(error)); storing it job by job")
        }
        var ends: [End] = []
        for job in commit.jobs {
            // A commit of one job has just failed as it is.
            var attempts = commit.jobs.count > 1 ? [job] : []
            if job.listsFiles, let split = try? IngestPlan.splittingOutRecords(of: job) { attempts.append(split) }
            var end: End = .failed(JobError.permanent("not written"))
            for attempt in attempts {
                let alone = IngestCommit(jobs: [attempt], linking: commit.linking)
                do {
                    end = note(try await ingestor.store.commitIngest(alone, now: now), of: alone, context: context)[0]
                    break
                } catch {
                    end = .failed(error)
                }
            }
            ends.append(end)
        }
        return ends
    }

    /// Logs what the operator should hear of a written commit (failed recordings, stale claims)
    /// and wakes the workers for the jobs it queued.
    private func note(_ ends: [IngestCommit.JobEnd], of commit: IngestCommit, context: JobContext) -> [End] {
        var queued = false
        for (job, end) in zip(commit.jobs, ends) {
            guard case .completed(let written) = end else {
                context.logger.warning(
                    "outcome dropped: stale lease (the lease expired and the job was requeued or taken over)",
                    metadata: ["job": "\(job.claim.job.id)"])
                continue
            }
            queued = queued || !job.followUps.isEmpty
            for (file, entry) in zip(job.files, written) {
                switch entry {
                case .recorded(let recording):
                    queued = queued || recording.status == .ready
                    if recording.status == .failed {
                        context.logger.notice("recording failed: \(recording.failureReason ?? "")", metadata: ["path": .string(file.path)])
                    }
                case .retried:
                    queued = true
                case .gone, .ignored, .companion:
                    continue
                }
            }
        }
        if queued { queue.wake() }
        return ends.map { .written($0) }
    }
}
