import Foundation
import Logging
import StenoCore
import StenoStore

extension JobWorkerPool {
    /// How a batch ended, as the worker sees it.
    enum BatchEnd: Sendable {
        /// The handler returned one outcome per claim.
        case finished([BatchItemOutcome])
        /// Every lease of the batch was lost; the outcomes no longer matter.
        case leaseLost
        /// Shutdown was requested and the grace period passed.
        case shutdownTimedOut
    }

    /// Runs claimed jobs of one batch handler together and records the outcomes it leaves to
    /// the pool: completions in one transaction, anything else job by job.
    func processBatch(_ claims: [ClaimedJob], handler: any BatchJobHandler, workerID: String) async {
        var batchLogger = logger
        batchLogger[metadataKey: "kind"] = .string(handler.kind)
        batchLogger[metadataKey: "jobs"] = "\(claims.count)"
        if let first = claims.first, let last = claims.last {
            batchLogger[metadataKey: "job"] = first.job.id == last.job.id ? "\(first.job.id)" : "\(first.job.id)…\(last.job.id)"
        }
        let context = JobContext(logger: batchLogger, workerID: workerID)
        let heartbeatLogger = batchLogger
        let end = await withTaskGroup(of: BatchEnd?.self) { group -> BatchEnd in
            group.addTask { .finished(await handler.runBatch(claims, context: context)) }
            group.addTask { await self.batchHeartbeatLoop(claims, logger: heartbeatLogger) }
            group.addTask { await self.shutdownTimer() == nil ? nil : .shutdownTimedOut }
            var end: BatchEnd = .shutdownTimedOut
            while let next = await group.next() {
                if let next {
                    end = next
                    break
                }
            }
            group.cancelAll()
            return end
        }
        // In a task of its own, as in `process`: a cancelled pool must still record the batch.
        let poolCancelled = Task.isCancelled
        let recordLogger = batchLogger
        await Task { await self.recordBatch(claims, end, poolCancelled: poolCancelled, logger: recordLogger) }.value
    }

    /// Renews every lease of a batch in one transaction every third of the lease; returns
    /// `.leaseLost` once none is held any more, nil when cancelled. Jobs whose lease alone was
    /// lost stay in the batch: their outcome is rejected by fencing when recorded.
    func batchHeartbeatLoop(_ claims: [ClaimedJob], logger: Logger) async -> BatchEnd? {
        let interval = settings.leaseDuration / 3
        var held = claims
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: interval)
            } catch {
                return nil
            }
            do {
                let stillHeld = try await queue.store.heartbeat(held, extendBy: settings.leaseDuration, now: now())
                if stillHeld.isEmpty {
                    logger.warning("lost every lease of the batch (they expired and other workers took the jobs); abandoning it")
                    return .leaseLost
                }
                if stillHeld.count < held.count {
                    logger.warning("lost the lease of \(held.count - stillHeld.count) job(s) of the batch; their outcomes will be dropped")
                    held = held.filter { stillHeld.contains($0.job.id) }
                }
            } catch {
                logger.warning("heartbeat failed: \(error)")
            }
        }
        return nil
    }

    /// Stores how a batch ended.
    func recordBatch(_ claims: [ClaimedJob], _ end: BatchEnd, poolCancelled: Bool, logger: Logger) async {
        switch end {
        case .leaseLost:
            return
        case .shutdownTimedOut:
            for claim in claims {
                await record(claim, .shutdownTimedOut, poolCancelled: poolCancelled, logger: jobLogger(claim, base: logger))
            }
        case .finished(let outcomes):
            var completions: [JobCompletion] = []
            var others: [(ClaimedJob, Result<JobOutcome, any Error>)] = []
            for (index, claim) in claims.enumerated() {
                let outcome: BatchItemOutcome =
                    index < outcomes.count
                    ? outcomes[index]
                    : .finished(.failure(JobError.permanent("the batch handler returned no outcome for this job")))
                switch outcome {
                case .recorded:
                    continue
                case .finished(.success(.succeeded(let result))):
                    completions.append(JobCompletion(claim: claim, result: result))
                case .finished(let result):
                    others.append((claim, result))
                }
            }
            await complete(completions, logger: logger)
            for (claim, result) in others {
                await record(claim, .finished(result), poolCancelled: poolCancelled, logger: jobLogger(claim, base: logger))
            }
        }
    }

    /// Completes succeeded jobs in one transaction; one by one when that fails as a whole.
    private func complete(_ completions: [JobCompletion], logger: Logger) async {
        guard !completions.isEmpty else { return }
        do {
            let recorded = try await queue.store.complete(completions, now: now())
            for (completion, done) in zip(completions, recorded) where !done {
                jobLogger(completion.claim, base: logger).warning(
                    "outcome dropped: stale lease (token \(completion.claim.token)); the lease expired and the job was requeued or taken over")
            }
        } catch {
            logger.warning("could not complete the batch at once (\(error)); completing its jobs one by one")
            for completion in completions {
                await record(
                    completion.claim, .finished(.success(.succeeded(result: completion.result))),
                    logger: jobLogger(completion.claim, base: logger))
            }
        }
    }

    /// A logger with one job's id and attempt, as `process` sets them.
    func jobLogger(_ claim: ClaimedJob, base: Logger) -> Logger {
        var jobLogger = base
        jobLogger[metadataKey: "jobs"] = nil
        jobLogger[metadataKey: "job"] = "\(claim.job.id)"
        jobLogger[metadataKey: "kind"] = .string(claim.job.kind)
        jobLogger[metadataKey: "attempt"] = "\(claim.job.attempts)/\(claim.job.maxAttempts)"
        return jobLogger
    }
}
