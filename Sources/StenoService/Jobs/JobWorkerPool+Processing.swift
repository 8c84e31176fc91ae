import Foundation
import Logging
import StenoCatalog
import StenoCore

extension JobWorkerPool {
    /// How a run of claimed jobs ended, as the worker sees it.
    enum RunEnd<Result: Sendable>: Sendable {
        /// The handler returned one outcome per job, or threw for all of them.
        case finished(Swift.Result<[JobOutcome<Result>], any Error>)
        /// Every lease was lost; the outcomes no longer matter.
        case leaseLost
        /// Shutdown was requested and the grace period passed.
        case shutdownTimedOut
    }

    /// Runs claimed jobs of one kind to their end and records the outcomes.
    func process(_ claims: [ClaimedJob], workerID: String) async {
        guard let first = claims.first else { return }
        guard let handler = handlers[first.job.kind] else {
            // Claims are filtered by kind, so this only happens if the table changed under us.
            let failure = JobError.permanent("no handler for job kind \"\(first.job.kind)\"")
            for claim in claims { await fail(claim, because: failure, logger: jobLogger(claim, base: logger)) }
            return
        }
        await process(claims, with: handler, workerID: workerID)
    }

    /// Reads the payloads, runs the handler while renewing the leases and watching for
    /// shutdown, then records what became of each job.
    func process<Handler: JobHandler>(_ claims: [ClaimedJob], with handler: Handler, workerID: String) async {
        var runLogger = logger
        runLogger[metadataKey: "kind"] = .string(handler.kind)
        if claims.count == 1, let claim = claims.first {
            runLogger = jobLogger(claim, base: logger)
        } else if let first = claims.first, let last = claims.last {
            runLogger[metadataKey: "jobs"] = "\(claims.count)"
            runLogger[metadataKey: "job"] = "\(first.job.id)…\(last.job.id)"
        }
        // A payload that does not read fails its own job at once; the others run.
        var readable: [JobAttempt<Handler.Kind>] = []
        for claim in claims {
            do {
                readable.append(JobAttempt(claim: claim, payload: try Handler.Kind.payload(of: claim.job)))
            } catch {
                await fail(claim, because: error, logger: jobLogger(claim, base: runLogger))
            }
        }
        guard !readable.isEmpty else { return }
        let attempts = readable
        let running = attempts.map(\.claim)
        let context = JobContext(
            logger: runLogger, workerID: workerID, progress: JobProgressReporter(store: queue.store, claims: running, logger: runLogger))
        let heartbeatLogger = runLogger
        let end = await withTaskGroup(of: RunEnd<Handler.Kind.Result>?.self) { group -> RunEnd<Handler.Kind.Result> in
            group.addTask {
                do {
                    return .finished(.success(try await handler.run(attempts, context: context)))
                } catch {
                    return .finished(.failure(error))
                }
            }
            group.addTask { await self.heartbeatLoop(running, logger: heartbeatLogger) ? .leaseLost : nil }
            group.addTask { await self.shutdownTimer() ? .shutdownTimedOut : nil }
            var end: RunEnd<Handler.Kind.Result> = .shutdownTimedOut
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
        await context.progress?.flushPending()
        // In a task of its own: a pool being cancelled must still release or record the claims,
        // and cancellation would interrupt the database call.
        let poolCancelled = Task.isCancelled
        let recordLogger = runLogger
        await Task {
            await self.record(attempts, end, handler: handler, poolCancelled: poolCancelled, logger: recordLogger)
        }.value
    }

    /// Renews every lease in one transaction every third of the lease; returns true once none
    /// is held any more, false when cancelled. A job whose lease alone was lost stays in the
    /// run: its outcome is rejected by fencing when recorded.
    func heartbeatLoop(_ claims: [ClaimedJob], logger: Logger) async -> Bool {
        let interval = settings.leaseDuration / 3
        var held = claims
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: interval)
            } catch {
                return false
            }
            do {
                let stillHeld = try await queue.store.heartbeat(held, extendBy: settings.leaseDuration, now: now())
                if stillHeld.isEmpty {
                    logger.warning("lost the lease (it expired and another worker took the job); abandoning the attempt")
                    return true
                }
                if stillHeld.count < held.count {
                    logger.warning("lost the lease of \(held.count - stillHeld.count) job(s); their outcomes will be dropped")
                    held = held.filter { stillHeld.contains($0.job.id) }
                }
                outage.succeeded()
            } catch where outage.failed(error) {
                // The job goes on: the next heartbeat may get through before the lease runs out.
                continue
            } catch {
                // A busy database must not kill the jobs; the next heartbeat may get through.
                logger.warning("heartbeat failed: \(error)")
            }
        }
        return false
    }

    /// Returns true once shutdown was requested and the grace period passed; false when
    /// cancelled first.
    func shutdownTimer() async -> Bool {
        let signal = queue.signal
        while !signal.isStopping {
            if Task.isCancelled { return false }
            await signal.wait(since: signal.generation, timeout: nil)
        }
        do {
            try await Task.sleep(for: settings.shutdownGrace)
        } catch {
            return false
        }
        return true
    }

    /// Stores how a run ended: completions in one transaction, anything else job by job.
    func record<Handler: JobHandler>(
        _ attempts: [JobAttempt<Handler.Kind>], _ end: RunEnd<Handler.Kind.Result>, handler: Handler, poolCancelled: Bool,
        logger: Logger
    ) async {
        let outcomes: [JobOutcome<Handler.Kind.Result>]
        switch end {
        case .leaseLost:
            return
        case .shutdownTimedOut:
            for attempt in attempts {
                let jobLogger = jobLogger(attempt.claim, base: logger)
                await release(attempt.claim, logger: jobLogger) {
                    $0.notice("job still running at the end of the shutdown grace period; released for the next start")
                }
            }
            return
        case .finished(.failure(let error)):
            outcomes = attempts.map { _ in .failed(error) }
        case .finished(.success(let returned)):
            outcomes = returned
        }
        var completions: [JobCompletion] = []
        for (index, attempt) in attempts.enumerated() {
            let jobLogger = jobLogger(attempt.claim, base: logger)
            let outcome = index < outcomes.count ? outcomes[index] : .failed(JobError.permanent("the handler returned no outcome for this job"))
            switch outcome {
            case .recorded:
                continue
            case .succeeded(let result):
                do {
                    completions.append(JobCompletion(claim: attempt.claim, result: try Handler.Kind.storedResult(result)))
                } catch {
                    await fail(attempt.claim, because: JobError.permanent("the result could not be written as JSON: \(error)"), logger: jobLogger)
                }
            case .failed(let error) where error is CancellationError && (queue.signal.isStopping || poolCancelled):
                // Cancelled because the pool stops: not a failure of the job.
                await release(attempt.claim, logger: jobLogger) { $0.info("job released at shutdown") }
            case .failed(let error) where CatalogOutage.isUnreachable(error):
                // The catalog went away under the job (its commit failed): not the job's fault,
                // so the attempt does not count and the job runs again once the database is back.
                _ = outage.failed(error)
                await release(attempt.claim, logger: jobLogger) { $0.info("job given back: the catalog database was unreachable") }
            case .retry(let after, let reason):
                await retry(attempt.claim, after: after, reason: reason, logger: jobLogger)
            case .failed(let error):
                await fail(attempt.claim, because: error, logger: jobLogger)
            }
        }
        await complete(completions, logger: logger)
    }

    /// Records a failed attempt: `JobError.permanent` makes the job `dead` at once, any other
    /// error is retried with backoff. A stale token means another worker owns the job now, and
    /// the outcome is dropped, which is what fencing is for.
    func fail(_ claim: ClaimedJob, because error: any Error, logger: Logger) async {
        let permanent = error is JobError
        let message = (error as? JobError)?.description ?? String(describing: error)
        do {
            let state = try await whenReachable {
                try await queue.store.fail(claim, error: message, retryAfter: nil, permanent: permanent, policy: settings.retryPolicy, now: now())
            }
            logger.warning("job failed: \(CredentialRedaction.redacted(message))", metadata: ["state": .string(state.rawValue)])
        } catch {
            Self.logRecordingError(error, logger: logger)
        }
    }

    /// Records a handler's request to try again after `after`; it counts as a failed attempt.
    func retry(_ claim: ClaimedJob, after: Duration, reason: String, logger: Logger) async {
        do {
            let state = try await whenReachable {
                try await queue.store.fail(claim, error: reason, retryAfter: after, permanent: false, policy: settings.retryPolicy, now: now())
            }
            logger.info("job asked to be retried", metadata: ["state": .string(state.rawValue), "reason": .string(CredentialRedaction.redacted(reason))])
        } catch {
            Self.logRecordingError(error, logger: logger)
        }
    }

    /// Gives a claim back (shutdown, or a catalog that went away): queued again, the attempt
    /// not counted.
    private func release(_ claim: ClaimedJob, logger: Logger, then log: (Logger) -> Void) async {
        do {
            try await whenReachable { try await queue.store.release(claim, now: now()) }
            log(logger)
        } catch {
            Self.logRecordingError(error, logger: logger)
        }
    }

    /// Runs `write` (recording an outcome), trying again while the catalog's database is
    /// unreachable, for at most a lease (after which the job is requeued anyway) and not once
    /// the pool stops.
    @discardableResult
    func whenReachable<Value>(_ write: () async throws -> Value) async throws -> Value {
        let deadline = ContinuousClock.now + settings.leaseDuration
        while true {
            do {
                let value = try await write()
                outage.succeeded()
                return value
            } catch where outage.failed(error) && !queue.signal.isStopping && ContinuousClock.now + outage.retryDelay < deadline {
                try? await Task.sleep(for: outage.retryDelay)
            }
        }
    }

    /// Completes succeeded jobs in one transaction; one by one when that fails as a whole.
    private func complete(_ completions: [JobCompletion], logger: Logger) async {
        guard !completions.isEmpty else { return }
        do {
            let recorded = try await whenReachable { try await queue.store.complete(completions, now: now()) }
            for (completion, done) in zip(completions, recorded) {
                let jobLogger = jobLogger(completion.claim, base: logger)
                if done {
                    jobLogger.debug("job succeeded")
                } else {
                    jobLogger.warning(
                        "outcome dropped: stale lease (token \(completion.claim.token)); the lease expired and the job was requeued or taken over")
                }
            }
        } catch where completions.count > 1 && !CatalogOutage.isUnreachable(error) {
            logger.warning("could not complete the jobs at once (\(error)); completing them one by one")
            for completion in completions { await complete([completion], logger: logger) }
        } catch {
            Self.logRecordingError(error, logger: jobLogger(completions[0].claim, base: logger))
        }
    }

    /// Logs a failure to record an outcome: a stale lease drops it; anything else leaves the
    /// job to run again when its lease expires (at-least-once).
    static func logRecordingError(_ error: any Error, logger: Logger) {
        if case .conflict? = error as? StoreError {
            logger.warning("outcome dropped: \(error)")
        } else {
            logger.error("could not record the outcome: \(error); the job will run again when its lease expires")
        }
    }

    /// A logger with one job's id, kind and attempt.
    func jobLogger(_ claim: ClaimedJob, base: Logger) -> Logger {
        var jobLogger = base
        jobLogger[metadataKey: "jobs"] = nil
        jobLogger[metadataKey: "job"] = "\(claim.job.id)"
        jobLogger[metadataKey: "kind"] = .string(claim.job.kind)
        jobLogger[metadataKey: "attempt"] = "\(claim.job.attempts)/\(claim.job.maxAttempts)"
        return jobLogger
    }
}
