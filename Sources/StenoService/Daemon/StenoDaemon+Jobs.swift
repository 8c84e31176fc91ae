import Foundation
import Logging
import ServiceLifecycle
import StenoCatalog
import StenoCore

extension StenoDaemon {
    /// The handlers of every job kind this build runs. Add a feature's handler here.
    func jobHandlers(store: any CatalogStore, queue: JobQueue) -> [any JobHandler] {
        let deletion = RecordingDeletionJobHandler(store: store, inbox: inbox)
        return [
            NoopJobHandler(), ingestHandler(store: store, queue: queue), deletion, PurgeMissingJobHandler(store: store, queue: queue),
            RetentionJobHandler(store: store, settings: configuration.retention, finisher: deletion), AccessLogPruneJobHandler(store: store),
        ]
    }

    /// The worker pool and the scheduler, configured from `[jobs]` and `[[schedule]]`.
    func makeJobServices(
        queue: JobQueue, fires: any ScheduledJobStore, handlers: [any JobHandler]
    ) -> (pool: JobWorkerPool, scheduler: JobScheduler) {
        var settings = JobWorkerPool.Settings()
        settings.workers = configuration.jobs.workers
        settings.leaseDuration = .seconds(configuration.jobs.leaseSeconds)
        let pool = JobWorkerPool(queue: queue, handlers: handlers, settings: settings, logger: logger)
        let kinds = Set(handlers.map(\.kind))
        for schedule in configuration.schedules where !kinds.contains(schedule.kind) {
            // Not fatal: the jobs wait, visible in `steno jobs`, for a daemon that runs the kind.
            logger.warning(
                "a schedule names a job kind this daemon does not run; its jobs will wait in the queue",
                metadata: ["kind": .string(schedule.kind), "known": .string(kinds.sorted().joined(separator: ","))])
        }
        let scheduler = JobScheduler(
            queue: queue, fires: fires,
            entries: configuration.schedules.map {
                JobScheduler.Entry(kind: $0.kind, schedule: $0.cron, payload: $0.payload, timeZone: $0.timeZone)
            } + defaultSchedules,
            logger: logger)
        return (pool, scheduler)
    }
}
