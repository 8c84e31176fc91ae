import Foundation
import Logging
import StenoCatalog
import StenoCore
import StenoSQLite
import Synchronization
import Testing

@testable import StenoService

/// The scheduler while the catalog's database is unreachable: a fire time that cannot be
/// recorded is tried again until it can, not dropped.
@Suite("Job scheduler while the catalog is unreachable")
struct JobSchedulerOutageTests {
    /// Fire times recorded in a real catalog, after the first `failures` calls found it unreachable.
    final class UnreachableAtFirst: ScheduledJobStore {
        let catalog: SQLiteCatalog
        let failuresLeft: Mutex<Int>
        /// The fire times asked for, in order.
        let asked = Mutex<[Date]>([])

        init(catalog: SQLiteCatalog, failures: Int) {
            self.catalog = catalog
            self.failuresLeft = Mutex(failures)
        }

        func enqueueScheduled(_ draft: JobDraft, schedule: String, fireTime: Date) async throws -> EnqueueResult? {
            asked.withLock { $0.append(fireTime) }
            let fail = failuresLeft.withLock { left in
                defer { left -= 1 }
                return left > 0
            }
            if fail { throw StoreError.unavailable("the catalog database at postgres://test is unreachable: connection refused") }
            return try await catalog.enqueueScheduled(draft, schedule: schedule, fireTime: fireTime)
        }
    }

    @Test func aFireTimeThatFindsTheCatalogUnreachableIsEnqueuedOnceItIsBack() async throws {
        let folder = NSTemporaryDirectory() + "steno-scheduler-outage-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let catalog = try await SQLiteCatalog.open(path: folder + "/catalog.sqlite")
        let fires = UnreachableAtFirst(catalog: catalog, failures: 1)
        // Every minute: the first fire time comes within a minute of the start.
        let entry = JobScheduler.Entry(kind: "links.revalidate", schedule: try CronSchedule("* * * * *"), timeZone: TimeZone(identifier: "UTC")!)
        let scheduler = JobScheduler(
            queue: JobQueue(store: catalog), fires: fires, entries: [entry], logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        let running = Task { try await scheduler.loop() }
        defer { running.cancel() }
        var jobs: [Job] = []
        for _ in 0..<1_500 where jobs.isEmpty {
            try await Task.sleep(for: .milliseconds(100))
            jobs = try await catalog.jobs(state: nil, kind: nil, afterID: nil, limit: 10)
        }
        let firstFire = fires.asked.withLock { $0.first }
        #expect(jobs.count == 1)
        #expect(jobs.first?.runAt == firstFire, "the fire time that failed is the one enqueued, not the next one")
    }
}
