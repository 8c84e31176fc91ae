import Foundation
import Logging
import ServiceLifecycle
import StenoCatalog
import StenoCore

/// Enqueues jobs at the fire times of cron schedules from the configuration (`[[schedule]]`):
/// calendar sync every few minutes, link revalidation nightly.
///
/// Each schedule enqueues with the unique key `schedule:<kind>`, so a run still queued or
/// running when the next fire time comes is not doubled. Several daemons sharing one queue
/// each see every fire time; the catalog records which fire times were enqueued
/// (`ScheduledJobStore`), so each fires once. Fire times missed while the daemon was down are
/// not caught up: the next one is computed from the start.
public struct JobScheduler: Service {
    /// One `[[schedule]]` entry.
    public struct Entry: Sendable, Hashable {
        /// The job kind to enqueue.
        public var kind: String
        /// When.
        public var schedule: CronSchedule
        /// The job payload, JSON text.
        public var payload: String
        /// The zone the cron fields are read in.
        public var timeZone: TimeZone
        /// The job priority.
        public var priority: Int
        /// The attempts each job has (a crash of the daemon counts as one); nil takes the
        /// queue's default.
        public var maxAttempts: Int?

        /// An entry; `payload` is JSON text.
        public init(
            kind: String, schedule: CronSchedule, payload: String = "{}", timeZone: TimeZone, priority: Int = JobPriority.normal,
            maxAttempts: Int? = nil
        ) {
            self.kind = kind
            self.schedule = schedule
            self.payload = payload
            self.timeZone = timeZone
            self.priority = priority
            self.maxAttempts = maxAttempts
        }

        /// The unique key of this schedule's jobs.
        public var uniqueKey: String { "schedule:\(kind)" }
    }

    let queue: JobQueue
    /// Where fire times are recorded, so only one daemon enqueues each.
    let fires: any ScheduledJobStore
    let entries: [Entry]
    let logger: Logger
    /// The longest sleep, so a changed wall clock (NTP step, suspend) is noticed soon.
    let maximumSleep: Duration
    /// Fire times that find the catalog unreachable are tried again, backing off.
    let outage: CatalogOutage

    /// A scheduler enqueuing through `queue` (which wakes the pool).
    public init(
        queue: JobQueue, fires: any ScheduledJobStore, entries: [Entry], logger: Logger, maximumSleep: Duration = .seconds(60)
    ) {
        self.queue = queue
        self.fires = fires
        self.entries = entries
        self.logger = logger
        self.maximumSleep = maximumSleep
        self.outage = CatalogOutage(loop: "the job scheduler", logger: logger)
    }

    /// Runs until graceful shutdown or cancellation.
    public func run() async throws {
        guard !entries.isEmpty else {
            // Nothing to do, but a service returning early would stop the group.
            try? await gracefulShutdown()
            return
        }
        for entry in entries {
            let next = entry.schedule.nextFireDate(after: Date(), in: entry.timeZone)
            logger.info(
                "schedule active",
                metadata: ["kind": .string(entry.kind), "cron": .string(entry.schedule.expression),
                           "next": .string(next.map { "\($0)" } ?? "never")])
        }
        do {
            try await cancelWhenGracefulShutdown { try await self.loop() }
        } catch is CancellationError {
            return
        }
    }

    func loop() async throws {
        // The last fire time handled per entry; the start counts as handled.
        var handled = entries.map { _ in Date() }
        while !Task.isCancelled {
            let now = Date()
            var earliest: Date?
            for (index, entry) in entries.enumerated() {
                guard let fire = entry.schedule.nextFireDate(after: handled[index], in: entry.timeZone) else { continue }
                if fire <= now {
                    guard await enqueue(entry, firedAt: fire) else {
                        // The catalog is unreachable: this fire time is tried again, not lost.
                        let retry = now.addingTimeInterval(outage.retryDelay.seconds)
                        earliest = min(earliest ?? retry, retry)
                        continue
                    }
                    handled[index] = fire
                    if let following = entry.schedule.nextFireDate(after: fire, in: entry.timeZone) {
                        earliest = min(earliest ?? following, following)
                    }
                } else {
                    earliest = min(earliest ?? fire, fire)
                }
            }
            guard let earliest else {
                // No schedule fires ever again; stay until shutdown.
                try await Task.sleep(for: .seconds(3600))
                continue
            }
            let wait = max(0, earliest.timeIntervalSince(Date()))
            try await Task.sleep(for: min(maximumSleep, .milliseconds(Int64(wait * 1000) + 1)))
        }
    }

    /// Enqueues one fire time's job (unless another daemon did). False when the catalog's
    /// database is unreachable, so the fire time must be tried again.
    @discardableResult
    func enqueue(_ entry: Entry, firedAt fire: Date) async -> Bool {
        do {
            let draft = JobDraft(
                kind: entry.kind, payload: entry.payload, priority: entry.priority, maxAttempts: entry.maxAttempts, runAt: fire,
                uniqueKey: entry.uniqueKey)
            guard let result = try await queue.enqueueScheduled(draft, schedule: entry.uniqueKey, fireTime: fire, fires: fires) else {
                logger.debug("scheduled run enqueued by another daemon", metadata: ["kind": .string(entry.kind), "fire": "\(fire)"])
                outage.succeeded()
                return true
            }
            outage.succeeded()
            switch result {
            case .enqueued(let job):
                logger.info("scheduled job enqueued", metadata: ["kind": .string(entry.kind), "job": "\(job.id)"])
            case .alreadyLive(let job):
                logger.notice(
                    "scheduled run skipped: the previous one is still live",
                    metadata: ["kind": .string(entry.kind), "job": "\(job.id)", "state": .string(job.state.rawValue)])
            }
        } catch where outage.failed(error) {
            return false
        } catch {
            logger.error("could not enqueue a scheduled job: \(error)", metadata: ["kind": .string(entry.kind)])
        }
        return true
    }
}
