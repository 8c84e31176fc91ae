import ServiceLifecycle
import StenoCatalog

/// Wakes this daemon's idle workers when another daemon sharing the catalog enqueues a job
/// (PostgreSQL's LISTEN/NOTIFY); on an embedded catalog it only waits for shutdown.
struct JobArrivalListener: Service {
    let store: any JobArrivalStore
    let queue: JobQueue

    func run() async throws {
        let queue = self.queue
        try await cancelWhenGracefulShutdown {
            try await store.watchJobArrivals { queue.wake() }
        }
    }
}
