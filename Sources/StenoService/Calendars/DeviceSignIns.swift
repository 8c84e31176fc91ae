import Foundation
import Logging
import StenoCalendar
import StenoCatalog
import Synchronization

/// Device sign-ins kept in the catalog, so that every daemon sharing it answers for any
/// sign-in and can finish it.
///
/// One daemon at a time polls a sign-in's token endpoint: the one holding the lease
/// `device-sign-in:<id>`, renewed before each wait between polls. The daemon that starts a
/// sign-in polls it; when that daemon stops or dies, the next daemon asked for the sign-in's
/// state takes the lease over (once it runs out) and polls on. Sign-ins are removed an hour
/// after they ended, or after their code expired unused.
final class DeviceSignIns: Sendable {
    /// Polls a sign-in to its end: waits with the `sleep` given between polls, then stores the
    /// account. Returns the account's id and its first sync job.
    typealias Flow = @Sendable (_ sleep: @escaping @Sendable (Duration) async throws -> Void) async throws -> (accountID: Int64, jobID: Int64?)

    let store: any CatalogStore
    /// This daemon: `host/pid`.
    let holder: String
    /// The shortest poller lease; a longer interval between polls holds it for three intervals.
    let minimumLease: Duration
    /// How long a succeeded sign-in still answers.
    let keptFor: TimeInterval
    /// How long a failed sign-in is kept and listed.
    let failuresKeptFor: TimeInterval
    let logger: Logger
    /// Sign-ins this daemon polls, by id.
    private let polling = Mutex<Set<String>>([])

    init(
        store: any CatalogStore, holder: String = "\(ProcessInfo.processInfo.hostName)/\(getpid())", minimumLease: Duration = .seconds(30),
        keptFor: TimeInterval = 3600, failuresKeptFor: TimeInterval = 7 * 86_400, logger: Logger
    ) {
        self.store = store
        self.holder = holder
        self.minimumLease = minimumLease
        self.keptFor = keptFor
        self.failuresKeptFor = failuresKeptFor
        self.logger = logger
    }

    static func leaseName(_ id: String) -> String { "device-sign-in:" + id }

    /// Records a started sign-in (ended ones past keeping go first) and polls it here.
    func begin(ownerID: Int64, sealedRequest: Data, expiresAt: Date, flow: @escaping Flow) async throws -> String {
        let now = Date()
        _ = try await store.removeDeviceSignIns(
            endedBefore: now.addingTimeInterval(-keptFor), failedBefore: now.addingTimeInterval(-failuresKeptFor))
        let id = UUID().uuidString.lowercased()
        try await store.addDeviceSignIn(
            DeviceSignInRecord(id: id, ownerID: ownerID, sealedRequest: sealedRequest, createdAt: now, expiresAt: expiresAt))
        if try await store.acquireLease(Self.leaseName(id), holder: holder, duration: minimumLease, now: now) {
            startPolling(id, flow: flow)
        }
        return id
    }

    /// The sign-in as the catalog has it. A pending sign-in no daemon polls any more is taken
    /// over: polled here with the flow `makeFlow` rebuilds from its record, or failed when
    /// its code expired or this daemon cannot open it.
    func record(_ id: String, makeFlow: @Sendable (DeviceSignInRecord) async throws -> Flow) async throws -> DeviceSignInRecord? {
        guard let record = try await store.deviceSignIn(id: id) else { return nil }
        guard record.outcome == nil, !isPolling(id) else { return record }
        let now = Date()
        guard try await store.acquireLease(Self.leaseName(id), holder: holder, duration: minimumLease, now: now) else { return record }
        // Read again under the lease: the previous poller may have finished it just now.
        guard let current = try await store.deviceSignIn(id: id), current.outcome == nil else {
            try await store.releaseLease(Self.leaseName(id), holder: holder)
            return try await store.deviceSignIn(id: id)
        }
        let flow: Flow
        do {
            guard now < current.expiresAt else { throw DeviceSignInFailure.expired }
            flow = try await makeFlow(current)
        } catch {
            let reason = String(describing: error)
            if try await store.finishDeviceSignIn(id: id, outcome: .failed(reason), now: now) {
                Self.logFailure(id, ownerID: current.ownerID, reason: reason, logger: logger)
            }
            try await store.releaseLease(Self.leaseName(id), holder: holder)
            return try await store.deviceSignIn(id: id)
        }
        logger.info("polling a device sign-in another daemon started", metadata: ["sign-in": "\(id)"])
        startPolling(id, flow: flow)
        return current
    }

    func isPolling(_ id: String) -> Bool { polling.withLock { $0.contains(id) } }

    /// Polls in a task of its own while this daemon holds the lease. A daemon that loses the
    /// lease (it could not renew in time) or stops leaves the sign-in pending for another.
    private func startPolling(_ id: String, flow: @escaping Flow) {
        guard polling.withLock({ $0.insert(id).inserted }) else { return }
        let (store, holder, minimumLease, logger) = (self.store, self.holder, self.minimumLease, self.logger)
        let lease = Self.leaseName(id)
        Task { [weak self] in
            let sleep: @Sendable (Duration) async throws -> Void = { wait in
                // Renewed before each wait, to outlast it and the poll after it.
                // Not renewed (taken, or the catalog unreachable): the sign-in stays pending
                // for whichever daemon is asked about it next.
                let renewed = try? await store.acquireLease(lease, holder: holder, duration: max(minimumLease, wait * 3), now: Date())
                guard renewed == true else { throw PollerLeaseLost() }
                try await Task.sleep(for: wait)
            }
            var outcome: DeviceSignInOutcome?
            do {
                let stored = try await flow(sleep)
                outcome = .succeeded(accountID: stored.accountID, jobID: stored.jobID)
            } catch is PollerLeaseLost {
                logger.warning("this daemon stopped polling a device sign-in it could not renew the lease of", metadata: ["sign-in": "\(id)"])
            } catch is CancellationError {
            } catch {
                outcome = .failed(String(describing: error))
            }
            if let outcome {
                do {
                    let recorded = try await store.finishDeviceSignIn(id: id, outcome: outcome, now: Date())
                    if recorded, case .failed(let reason) = outcome {
                        let ownerID = try? await store.deviceSignIn(id: id)?.ownerID
                        Self.logFailure(id, ownerID: ownerID, reason: reason, logger: logger)
                    }
                } catch {
                    logger.error("cannot record how a device sign-in ended: \(error)", metadata: ["sign-in": "\(id)"])
                }
            }
            try? await store.releaseLease(lease, holder: holder)
            _ = self?.polling.withLock { $0.remove(id) }
        }
    }

    /// A sign-in that ended without an account is said at warning level: the person who
    /// started it may have stopped watching, and an operator should see why.
    private static func logFailure(_ id: String, ownerID: Int64?, reason: String, logger: Logger) {
        logger.warning(
            "Microsoft sign-in failed: \(reason)",
            metadata: ["sign-in": "\(id)", "owner": "\(ownerID.map(String.init) ?? "?")"])
    }

    /// The lease was taken by another daemon while this one waited.
    struct PollerLeaseLost: Error {}
}
