import Foundation
import Logging
import ServiceLifecycle
import StenoCatalog

/// Runs the inbox watcher only while this daemon holds the inbox's lease in the catalog, so
/// that of several daemons sharing a catalog (and, through a shared filesystem, the inbox)
/// exactly one watches and rescans it; the ingest jobs it queues run on every daemon.
///
/// The holder renews every third of the lease. A daemon that cannot renew (the catalog is
/// unreachable) stops watching before its lease could have run out, so two never watch at once;
/// one that stops releases the lease, and one that dies leaves it to run out, after which
/// another daemon takes it. On an embedded catalog the only daemon always holds it.
struct InboxWatchLease: Service {
    let leases: any LeaseStore
    /// The lease's name: `inbox:` and the inbox's absolute path.
    let name: String
    /// This daemon: `host/pid`.
    let holder: String
    let duration: Duration
    let logger: Logger
    /// A new watcher for each time this daemon takes the lease.
    let makeWatcher: @Sendable () -> any Service
    /// Renewals that find the catalog unreachable are logged once per outage.
    let outage: CatalogOutage

    init(
        leases: any LeaseStore, inbox: String, duration: Duration, logger: Logger,
        holder: String = "\(ProcessInfo.processInfo.hostName)/\(getpid())", makeWatcher: @escaping @Sendable () -> any Service
    ) {
        self.leases = leases
        self.name = "inbox:" + inbox
        self.holder = holder
        self.duration = duration
        self.logger = logger
        self.makeWatcher = makeWatcher
        self.outage = CatalogOutage(loop: "the inbox lease and watcher", logger: logger)
    }

    var renewInterval: Duration { duration / 3 }

    func run() async throws {
        do {
            try await cancelWhenGracefulShutdown { try await self.loop() }
        } catch is CancellationError {}
        // Hand the inbox over at once rather than after the lease runs out (outside the
        // cancelled task, or the release would be cancelled too).
        let (leases, name, holder) = (self.leases, self.name, self.holder)
        await Task { try? await leases.releaseLease(name, holder: holder) }.value
    }

    private func loop() async throws {
        var waiting = false
        while !Task.isCancelled {
            switch await take() {
            case .held:
                break
            case .heldByAnother:
                if !waiting { logger.info("another daemon watches the inbox; this one takes over if it stops", metadata: ["lease": "\(name)"]) }
                waiting = true
                try await Task.sleep(for: renewInterval)
                continue
            case .unreachable:
                // Nobody can tell who watches: try again soon (the lease is ours again if it
                // has not run out, or whoever's it is once the catalog is back).
                try await Task.sleep(for: min(renewInterval, outage.retryDelay))
                continue
            }
            waiting = false
            logger.info("this daemon watches the inbox", metadata: ["lease": "\(name)"])
            await watchWhileHeld()
        }
    }

    enum Attempt { case held, heldByAnother, unreachable }

    /// Takes or renews the lease.
    private func take() async -> Attempt {
        do {
            let held = try await leases.acquireLease(name, holder: holder, duration: duration, now: Date())
            outage.succeeded()
            return held ? .held : .heldByAnother
        } catch where outage.failed(error) {
            return .unreachable
        } catch is CancellationError {
            return .unreachable
        } catch {
            logger.warning("cannot reach the catalog for the inbox lease: \(error)")
            return .unreachable
        }
    }

    /// ``take()``, counted as `.unreachable` when it has not answered within `limit`.
    private func take(within limit: Duration) async -> Attempt {
        await withTaskGroup(of: Attempt?.self) { group in
            group.addTask { await take() }
            group.addTask {
                try? await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            return await group.next().flatMap { $0 } ?? .unreachable
        }
    }

    /// Runs a watcher until the lease is lost (or the task is cancelled).
    private func watchWhileHeld() async {
        let watcher = makeWatcher()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                do { try await watcher.run() } catch { logger.error("the inbox watcher stopped: \(error)") }
            }
            group.addTask {
                var renewed = ContinuousClock.now
                while !Task.isCancelled {
                    try? await Task.sleep(for: renewInterval)
                    if Task.isCancelled { return }
                    // A renewal waiting for the catalog must not outlast the lease it renews.
                    let left = duration - renewInterval - (ContinuousClock.now - renewed)
                    switch await take(within: max(left, .milliseconds(1))) {
                    case .held:
                        renewed = .now
                    case .heldByAnother:
                        logger.warning("another daemon took the inbox lease; stopping this daemon's watcher", metadata: ["lease": "\(name)"])
                        return
                    case .unreachable where ContinuousClock.now - renewed >= duration - renewInterval:
                        // Not renewed for most of the lease: another daemon may take it any moment.
                        logger.warning("cannot renew the inbox lease; stopping this daemon's watcher", metadata: ["lease": "\(name)"])
                        return
                    case .unreachable:
                        continue
                    }
                }
            }
            _ = await group.next()
            group.cancelAll()
        }
    }
}
