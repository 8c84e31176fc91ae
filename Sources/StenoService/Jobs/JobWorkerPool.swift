#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import ServiceLifecycle
import StenoCatalog
import StenoCore

/// Runs queued jobs with a bounded number of workers (`[jobs] workers`).
///
/// Each worker claims due jobs of one kind — up to the handler's `maxBatchSize` — with a lease
/// each, renews the leases every third of their length while the handler runs, and records
/// the outcomes with the claims' fencing tokens. Idle
/// workers sleep until something is enqueued through the `JobQueue` or the poll interval
/// passes (jobs enqueued by another process, retries coming due). Expired leases — of a crashed
/// daemon, or a stalled worker — are requeued at start-up and every half lease; at start-up the
/// jobs of a process on this host that no longer exists (a `kill -9`) are requeued at once.
///
/// On graceful shutdown the pool stops claiming, lets running jobs finish for up to
/// `shutdownGrace`, then cancels the rest and releases their claims (back to `queued`, the
/// attempt not counted), so another daemon or the next start picks them up at once.
public struct JobWorkerPool: Service {
    /// How the pool runs.
    public struct Settings: Sendable, Hashable {
        /// Jobs run at the same time (`[jobs] workers`).
        public var workers: Int = 2
        /// How long a claim lasts without a heartbeat (`[jobs] lease_seconds`).
        public var leaseDuration: Duration = .seconds(60)
        /// How often idle workers look for due jobs nobody woke them for.
        public var pollInterval: Duration = .milliseconds(500)
        /// How long running jobs may finish after a shutdown request before they are released.
        public var shutdownGrace: Duration = .seconds(10)
        /// Backoff between failed attempts.
        public var retryPolicy: RetryPolicy = .default

        /// The defaults: 2 workers, 60 s leases, 500 ms polls, 10 s grace, `RetryPolicy.default`.
        public init() {}
    }

    let queue: JobQueue
    let handlers: [String: any JobHandler]
    let settings: Settings
    let logger: Logger
    /// Names this daemon's workers: `host/pid`, then `/n` per worker.
    let ownerPrefix: String
    /// Injectable for tests; the wall clock by default.
    let now: @Sendable () -> Date
    /// Shared by the workers, heartbeats and the reaper: they back off together while the
    /// catalog's database is unreachable, and the outage is logged once.
    let outage: CatalogOutage

    /// A pool running `handlers` (one per kind; a later one with the same kind wins).
    public init(
        queue: JobQueue, handlers: [any JobHandler], settings: Settings = Settings(), logger: Logger,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.queue = queue
        var byKind: [String: any JobHandler] = [:]
        for handler in handlers { byKind[handler.kind] = handler }
        self.handlers = byKind
        var settings = settings
        settings.workers = max(1, settings.workers)
        self.settings = settings
        self.logger = logger
        self.ownerPrefix = "\(ProcessInfo.processInfo.hostName)/\(getpid())"
        self.now = now
        self.outage = CatalogOutage(loop: "job workers", logger: logger)
    }

    /// The kinds this pool runs.
    public var kinds: Set<String> { Set(handlers.keys) }

    /// Runs until graceful shutdown (or cancellation), then returns once every claimed job has
    /// finished or been released.
    public func run() async throws {
        let signal = queue.signal
        await recoverAtStartUp()
        logger.info("job workers started", metadata: ["workers": "\(settings.workers)", "kinds": "\(kinds.sorted().joined(separator: ","))"])
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.reapLoop() }
                for index in 1...settings.workers {
                    group.addTask { await self.workerLoop(workerID: "\(self.ownerPrefix)/\(index)") }
                }
                await group.waitForAll()
            }
        } onGracefulShutdown: {
            signal.stop()
        }
        logger.info("job workers stopped")
    }

    /// Crash recovery: requeues the jobs of processes on this host that are gone (a `kill -9`
    /// before this start) at once, and every expired lease (other hosts, stalled workers).
    func recoverAtStartUp() async {
        do {
            for owner in try await abandonedOwners() {
                let requeued = try await queue.store.requeueLeases(heldBy: owner, now: now())
                if requeued > 0 {
                    logger.notice("requeued the jobs of a daemon that is gone", metadata: ["owner": .string(owner), "jobs": "\(requeued)"])
                }
            }
            let requeued = try await queue.store.requeueExpiredLeases(now: now())
            if requeued > 0 { logger.notice("requeued jobs whose lease expired", metadata: ["jobs": "\(requeued)"]) }
        } catch {
            logger.error("could not requeue abandoned jobs at start-up: \(error)")
        }
    }

    /// `host/pid` prefixes of running jobs' owners on this host whose process no longer exists.
    /// A reused pid makes a dead owner look alive; its jobs then wait for their lease to expire.
    func abandonedOwners() async throws -> Set<String> {
        let host = ProcessInfo.processInfo.hostName
        var owners = Set<String>()
        var after: Int64?
        // Bounded by the number of running jobs, a page at a time.
        while true {
            let page = try await queue.store.jobs(state: .running, kind: nil, afterID: after, limit: 500)
            for job in page {
                guard let owner = job.leaseOwner else { continue }
                let parts = owner.split(separator: "/")
                guard parts.count == 3, parts[0] == host, let pid = Int32(parts[1]), pid > 0, pid != getpid() else { continue }
                if kill(pid, 0) == -1 && errno == ESRCH { owners.insert("\(host)/\(pid)") }
            }
            guard page.count == 500, let last = page.last else { break }
            after = last.id
        }
        return owners
    }

    /// Requeues expired leases every half lease until the pool stops.
    func reapLoop() async {
        let signal = queue.signal
        let interval = settings.leaseDuration / 2
        while !signal.isStopping && !Task.isCancelled {
            let deadline = ContinuousClock.now + interval
            // Woken by enqueues too; only the interval matters here.
            while !signal.isStopping && !Task.isCancelled && ContinuousClock.now < deadline {
                await signal.wait(since: signal.generation, timeout: deadline - ContinuousClock.now)
            }
            if signal.isStopping || Task.isCancelled { return }
            do {
                let requeued = try await queue.store.requeueExpiredLeases(now: now())
                if requeued > 0 { logger.notice("requeued jobs whose lease expired", metadata: ["jobs": "\(requeued)"]) }
                outage.succeeded()
            } catch where outage.failed(error) {
                continue
            } catch {
                logger.error("could not requeue expired leases: \(error)")
            }
        }
    }

    /// How many jobs of each kind one claim may take.
    var claimLimits: [String: Int] {
        handlers.mapValues { max(1, $0.maxBatchSize) }
    }

    /// One worker: claim, run, record; sleep when idle.
    func workerLoop(workerID: String) async {
        let signal = queue.signal
        let kinds = self.kinds
        let limits = self.claimLimits
        while !signal.isStopping && !Task.isCancelled {
            let generation = signal.generation
            let claims: [ClaimedJob]
            do {
                claims = try await queue.store.claim(
                    workerID: workerID, kinds: kinds, limits: limits, leaseDuration: settings.leaseDuration, now: now())
            } catch where outage.failed(error) {
                // Enqueues cannot wake us while the database is away: wait it out, backing off.
                await signal.wait(since: generation, timeout: outage.retryDelay)
                continue
            } catch {
                logger.error("could not claim a job: \(error)", metadata: ["worker": .string(workerID)])
                await signal.wait(since: generation, timeout: settings.pollInterval)
                continue
            }
            outage.succeeded()
            guard !claims.isEmpty else {
                await signal.wait(since: generation, timeout: settings.pollInterval)
                continue
            }
            await process(claims, workerID: workerID)
        }
    }
}
