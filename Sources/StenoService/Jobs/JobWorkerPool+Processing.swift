import Foundation
import Logging
import StenoCore
import StenoStore

extension JobWorkerPool {
    /// How one attempt ended, as the worker sees it.
    enum AttemptEnd: Sendable {
        /// The handler returned or threw.
        case finished(Result<JobOutcome, any Error>)
        /// A heartbeat found the lease taken over; the outcome no longer matters.
        case leaseLost
        /// Shutdown was requested and the grace period passed.
        case shutdownTimedOut
    }

    /// Runs one claimed job to its end and records the outcome.
    func process(_ claim: ClaimedJob, workerID: String) async {
        let job = claim.job
        var jobLogger = logger
        jobLogger[metadataKey: "job"] = "\(job.id)"
        jobLogger[metadataKey: "kind"] = .string(job.kind)
        jobLogger[metadataKey: "attempt"] = "\(job.attempts)/\(job.maxAttempts)"
        guard let handler = handlers[job.kind] else {
            // Claims are filtered by kind, so this only happens if the table changed under us.
            await record(
                claim, .finished(.failure(JobError.permanent("no handler for job kind \"\(job.kind)\""))), logger: jobLogger)
            return
        }
        let context = JobContext(logger: jobLogger, workerID: workerID)
        let heartbeatLogger = jobLogger
        let end = await withTaskGroup(of: AttemptEnd?.self) { group -> AttemptEnd in
            group.addTask {
                do {
                    return .finished(.success(try await handler.run(job, context: context)))
                } catch {
                    return .finished(.failure(error))
                }
            }
            group.addTask { await self.heartbeatLoop(claim, logger: heartbeatLogger) }
            group.addTask { await self.shutdownTimer() }
            var end: AttemptEnd = .shutdownTimedOut
            while let next = await group.next() {
                if let next {
                    end = next
                    break
                }
            }
            // Stops the heartbeat and timer, and cancels the handler when it is not done.
            group.cancelAll()
            return end
        }
        // In a task of its own: a pool being cancelled must still release or record the claim,
        // and cancellation would interrupt the database call.
        let recordLogger = jobLogger
        let poolCancelled = Task.isCancelled
        await Task { await self.record(claim, end, poolCancelled: poolCancelled, logger: recordLogger) }.value
    }

    /// Renews the lease every third of its length; returns `.leaseLost` when that fails, nil
    /// when cancelled.
    func heartbeatLoop(_ claim: ClaimedJob, logger: Logger) async -> AttemptEnd? {
        let interval = settings.leaseDuration / 3
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: interval)
            } catch {
                return nil
            }
            do {
                if try await !queue.store.heartbeat(claim, extendBy: settings.leaseDuration, now: now()) {
                    logger.warning("lost the lease (it expired and another worker took the job); abandoning the attempt")
                    return .leaseLost
                }
            } catch {
                // A busy database must not kill the job; the next heartbeat may get through.
                logger.warning("heartbeat failed: \(error)")
            }
        }
        return nil
    }

    /// Returns `.shutdownTimedOut` once shutdown was requested and the grace period passed;
    /// nil when cancelled first.
    func shutdownTimer() async -> AttemptEnd? {
        let signal = queue.signal
        while !signal.isStopping {
            if Task.isCancelled { return nil }
            await signal.wait(since: signal.generation, timeout: nil)
        }
        do {
            try await Task.sleep(for: settings.shutdownGrace)
        } catch {
            return nil
        }
        return .shutdownTimedOut
    }

    /// Stores how an attempt ended. A stale token means another worker owns the job now: the
    /// outcome is dropped, which is what fencing is for.
    func record(_ claim: ClaimedJob, _ end: AttemptEnd, poolCancelled: Bool = false, logger: Logger) async {
        let store = queue.store
        do {
            switch end {
            case .finished(.success(.succeeded(let result))):
                try await store.complete(claim, result: result, now: now())
                logger.debug("job succeeded")
            case .finished(.success(.retry(let after, let reason))):
                let state = try await store.fail(
                    claim, error: reason, retryAfter: after, permanent: false, policy: settings.retryPolicy, now: now())
                logger.info("job asked to be retried", metadata: ["state": .string(state.rawValue), "reason": .string(CredentialRedaction.redacted(reason))])
            case .finished(.failure(let error)) where error is CancellationError && (queue.signal.isStopping || poolCancelled):
                // Cancelled because the pool stops: not a failure of the job.
                try await store.release(claim, now: now())
                logger.info("job released at shutdown")
            case .finished(.failure(let error)):
                let permanent = error is JobError
                let message = (error as? JobError)?.description ?? String(describing: error)
                let state = try await store.fail(
                    claim, error: message, retryAfter: nil, permanent: permanent, policy: settings.retryPolicy, now: now())
                logger.warning("job failed: \(CredentialRedaction.redacted(message))", metadata: ["state": .string(state.rawValue)])
            case .leaseLost:
                break
            case .shutdownTimedOut:
                try await store.release(claim, now: now())
                logger.notice("job still running at the end of the shutdown grace period; released for the next start")
            }
        } catch let error as StoreError {
            if case .conflict = error {
                logger.warning("outcome dropped: \(error)")
            } else {
                logger.error("could not record the outcome: \(error)")
            }
        } catch {
            // The lease will expire and the job run again: at-least-once.
            logger.error("could not record the outcome: \(error); the job will run again when its lease expires")
        }
    }
}
