import Foundation
import StenoCatalog

extension StenoDaemon {
    /// The configured inbox, resolved: the one place the ingestor, the watcher and the
    /// recordings methods get it from.
    var inbox: Inbox { Inbox(configuration.inboxDirectory) }

    /// The ingest job handler on the configured inbox.
    func ingestHandler(store: any CatalogStore, queue: JobQueue) -> IngestJobHandler {
        IngestJobHandler(
            ingestor: RecordingIngestor(
                inbox: inbox, store: store, logger: logger, largeReads: LargeReadShare(workers: configuration.jobs.workers)),
            queue: queue)
    }

    /// The inbox watcher, turning settled and removed files into ingest jobs.
    func makeInboxWatcher(store: any CatalogStore, queue: JobQueue) -> InboxWatcher {
        let logger = self.logger
        return InboxWatcher(
            inbox: inbox.root,
            settings: configuration.watcher, logger: logger,
            knownPaths: {
                try await store.presentPaths().mapValues {
                    FileSignature(size: $0.size, modifiedMilliseconds: $0.modifiedMilliseconds)
                }
            },
            onChanges: { changes in
                let paths = changes.map { change in
                    switch change {
                    case .settled(let path), .removed(let path): return path
                    }
                }
                do {
                    // One transaction for the lot, and a job per batch of files: a folder of files
                    // costs a few job rows, not one each.
                    _ = try await queue.enqueue(IngestJobHandler.drafts(paths: paths))
                    return true
                } catch {
                    // The watcher offers them again soon (a full disk, a busy catalog).
                    logger.error("cannot queue the ingestion of \(paths.count) path(s) (\(paths.prefix(3).joined(separator: ", "))…): \(error)")
                    return false
                }
            })
    }

    /// The recordings methods.
    func recordingMethods(store: any CatalogStore, queue: JobQueue) -> RecordingMethods {
        RecordingMethods(store: store, queue: queue, inbox: inbox)
    }
}
