import Foundation
import StenoCatalog
import StenoCore

extension StenoDaemon {
    /// Linking after ingest and sync, and revalidation (nightly and on request).
    func linkJobHandlers(store: any CatalogStore, linker: RecordingLinker) -> [any JobHandler] {
        [
            LinkRecordingJobHandler(linker: linker),
            LinksAfterSyncJobHandler(linker: linker, store: store),
            RevalidateLinksJobHandler(linker: linker, store: store),
        ]
    }

    /// The nightly revalidation, unless the configuration schedules `links.revalidate` itself,
    /// the nightly pruning of the access log, and the nightly purge of missing recordings and
    /// retention run when `[retention]` asks for them.
    var defaultSchedules: [JobScheduler.Entry] {
        var entries: [JobScheduler.Entry] = []
        if !configuration.schedules.contains(where: { $0.kind == RevalidateLinksJobHandler.kind }),
            let nightly = try? CronSchedule(configuration.links.revalidateCron)
        {
            entries.append(JobScheduler.Entry(kind: RevalidateLinksJobHandler.kind, schedule: nightly, timeZone: configuration.links.timeZone))
        }
        if let days = configuration.retention.purgeMissingAfterDays, let nightly = try? CronSchedule(configuration.retention.purgeCron),
            let payload = try? PurgeMissingJob.draft(.init(olderThanDays: days)).payload
        {
            entries.append(
                JobScheduler.Entry(kind: PurgeMissingJob.name, schedule: nightly, payload: payload, timeZone: configuration.links.timeZone))
        }
        if let nightly = try? CronSchedule(configuration.retention.purgeCron),
            let payload = try? AccessLogPruneJob.draft(.init(olderThanDays: configuration.retention.auditDays)).payload
        {
            entries.append(
                JobScheduler.Entry(kind: AccessLogPruneJob.name, schedule: nightly, payload: payload, timeZone: configuration.links.timeZone))
        }
        if let nightly = retentionSchedule {
            entries.append(
                JobScheduler.Entry(
                    kind: RetentionJob.name, schedule: nightly, timeZone: configuration.links.timeZone, maxAttempts: RetentionJob.maxAttempts))
        }
        return entries
    }

    /// When the retention run fires; nil when every rule keeps recordings forever.
    var retentionSchedule: CronSchedule? {
        guard configuration.retention.policy.removesAnything else { return nil }
        return try? CronSchedule(configuration.retention.expireCron)
    }
}
