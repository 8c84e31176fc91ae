import Foundation
import Logging
import ServiceLifecycle
import StenoCatalog
import StenoSQLite
import StenoTesting
import Testing

@testable import StenoService

/// Of several daemons sharing a catalog, one watches the inbox at a time; another takes over
/// when it stops or dies.
@Suite("Inbox watch lease", .timeLimit(.minutes(3)))
struct InboxWatchLeaseTests {
    let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// A watcher that says when it runs and stops.
    struct ProbeWatcher: Service {
        let name: String
        let events: AsyncStream<String>.Continuation
        func run() async throws {
            events.yield("\(name) watching")
            defer { events.yield("\(name) stopped") }
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(60)) }
        }
    }

    func lease(_ store: any LeaseStore, holder: String, events: AsyncStream<String>.Continuation) -> InboxWatchLease {
        InboxWatchLease(
            leases: store, inbox: "/srv/inbox", duration: .seconds(3), logger: logger, holder: holder,
            makeWatcher: { ProbeWatcher(name: holder, events: events) })
    }

    @Test func oneDaemonWatchesAndAnotherTakesOverWhenItStops() async throws {
        // The test and its services run on a thread of their own: in a parallel run, other
        // tests hold the shared pool's two threads in blocking calls for minutes.
        let executor = DedicatedTaskExecutor()
        try await withTaskExecutorPreference(executor) {
            let temporary = TemporaryFolder()
            let catalog = try await SQLiteCatalog.open(path: temporary.path + "/catalog.sqlite")
            let (events, continuation) = AsyncStream.makeStream(of: String.self)
            var iterator = events.makeAsyncIterator()
            let first = Task(executorPreference: executor) { try await lease(catalog, holder: "a/1", events: continuation).run() }
            #expect(await iterator.next() == "a/1 watching")
            let second = Task(executorPreference: executor) { try await lease(catalog, holder: "b/2", events: continuation).run() }
            // b waits while a holds the lease: a stops (and releases it), then b watches.
            first.cancel()
            #expect(await iterator.next() == "a/1 stopped")
            #expect(await iterator.next() == "b/2 watching")
            second.cancel()
            #expect(await iterator.next() == "b/2 stopped")
        }
    }

    @Test func aDeadDaemonsLeaseRunsOutAndAnotherTakesIt() async throws {
        let executor = DedicatedTaskExecutor()
        try await withTaskExecutorPreference(executor) {
            let temporary = TemporaryFolder()
            let catalog = try await SQLiteCatalog.open(path: temporary.path + "/catalog.sqlite")
            // A daemon killed while watching: its lease stays until it runs out.
            #expect(try await catalog.acquireLease("inbox:/srv/inbox", holder: "dead/9", duration: .seconds(2), now: Date()))
            let (events, continuation) = AsyncStream.makeStream(of: String.self)
            var iterator = events.makeAsyncIterator()
            let started = ContinuousClock.now
            let survivor = Task(executorPreference: executor) { try await lease(catalog, holder: "b/2", events: continuation).run() }
            defer { survivor.cancel() }
            #expect(await iterator.next() == "b/2 watching")
            #expect(ContinuousClock.now - started >= .seconds(1.5), "took over before the dead daemon's lease ran out")
        }
    }
}

/// A temporary folder removed when the value goes.
final class TemporaryFolder: Sendable {
    let path = NSTemporaryDirectory() + "steno-lease-" + UUID().uuidString
    init() { try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}
