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

    /// The nightly revalidation, unless the configuration schedules `links.revalidate` itself.
    var defaultSchedules: [JobScheduler.Entry] {
        guard !configuration.schedules.contains(where: { $0.kind == RevalidateLinksJobHandler.kind }),
            let nightly = try? CronSchedule(configuration.links.revalidateCron)
        else { return [] }
        return [JobScheduler.Entry(kind: RevalidateLinksJobHandler.kind, schedule: nightly, timeZone: configuration.links.timeZone)]
    }
}
