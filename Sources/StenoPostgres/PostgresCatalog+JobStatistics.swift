import Foundation
import PostgresNIO
import StenoCatalog
import Synchronization

/// The planner's statistics of the jobs table, kept fresh through bursts of enqueues.
///
/// A claim takes the first due job in the order of the claim index (priority, run-at, id).
/// Knowing the queue is large, PostgreSQL walks that index to the first due job; with no
/// statistics yet (a new catalog) or stale ones (thousands of jobs enqueued between
/// autovacuum's looks, a minute apart, or too few to reach its share of a large table) it
/// reads and sorts every queued job for each claim instead, and claims slow down as the queue
/// grows. So each daemon analyzes the table itself after every ``jobsBetweenAnalyses`` jobs it
/// enqueued: a few milliseconds, once per thousand jobs.
extension PostgresCatalog {
    /// How many jobs this process enqueues between two analyses of the jobs table.
    static let jobsBetweenAnalyses = 1000

    /// Jobs enqueued by this process since its last analysis (all its catalogs: a daemon has one).
    private static let enqueuedSinceAnalysis = Mutex(0)

    /// Counts `added` new jobs, and analyzes the jobs table once enough were added. A failed
    /// analysis is logged and changes nothing else: the jobs are enqueued already.
    func noteEnqueued(_ added: Int) async {
        guard added > 0 else { return }
        let due = Self.enqueuedSinceAnalysis.withLock { count -> Bool in
            count += added
            guard count >= Self.jobsBetweenAnalyses else { return false }
            count = 0
            return true
        }
        guard due else { return }
        do {
            // SKIP_LOCKED: when another daemon analyzes the table right now, its figures do.
            try await execute("ANALYZE (SKIP_LOCKED) jobs")
        } catch {
            logger.notice("could not refresh the statistics of the jobs table; claims may be slower until autovacuum does: \(error)")
        }
    }
}
