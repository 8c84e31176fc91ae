import Foundation
import StenoStore

extension StenoDaemon {
    /// The ingest job handler on the configured inbox.
    func ingestHandler(store: SQLiteCatalog, queue: JobQueue) -> IngestJobHandler {
        IngestJobHandler(ingestor: RecordingIngestor(inbox: configuration.inboxDirectory, store: store), queue: queue)
    }

    /// The inbox watcher, turning settled and removed files into ingest jobs.
    func makeInboxWatcher(store: SQLiteCatalog, queue: JobQueue) -> InboxWatcher {
        let logger = self.logger
        return InboxWatcher(
            inbox: RecordingIngestor.resolved(configuration.inboxDirectory) ?? configuration.inboxDirectory,
            settings: configuration.watcher, logger: logger,
            knownPaths: {
                try await store.presentPaths().mapValues {
                    FileSignature(size: $0.size, modifiedMilliseconds: $0.modifiedMilliseconds)
                }
            },
            onChange: { change in
                let path: String
                switch change {
                case .settled(let settled): path = settled
                case .removed(let removed): path = removed
                }
                do {
                    _ = try await queue.enqueue(IngestJobHandler.draft(path: path))
                } catch {
                    // The next rescan finds the file again.
                    logger.error("cannot queue the ingestion of \(path): \(error)")
                }
            })
    }

    /// The recordings methods.
    func recordingMethods(store: SQLiteCatalog, queue: JobQueue) -> RecordingMethods {
        RecordingMethods(
            store: store, queue: queue, inbox: RecordingIngestor.resolved(configuration.inboxDirectory) ?? configuration.inboxDirectory)
    }
}
