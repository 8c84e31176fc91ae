import Foundation
import StenoAPI
import StenoCatalog
import StenoCore

/// `system.subscribe`: a client waiting for jobs (`--wait`) is told of each change as it
/// happens — a state, an attempt, the next retry time, the last error — on its own connection,
/// instead of asking `jobs.get` for every job ten times a second. The daemon reads the jobs
/// from the catalog, so changes made by any daemon sharing it are seen.
extension JobMethods {
    /// How often the followed jobs are read.
    static let subscribeInterval: Duration = .milliseconds(200)
    /// The longest a subscription may last.
    static let maximumSubscribeSeconds: Double = 3600

    func registerSubscribe(in table: inout RPCMethodTable) {
        let methods = self
        table.register(StenoMethods.systemSubscribe, access: .user) { call, params in
            try await methods.follow(params, call: call)
        }
    }

    func follow(_ params: SubscribeParams, call: RPCCall) async throws -> SubscribeResult {
        let ids = Array(Set(params.jobs)).sorted()
        guard ids.count <= 10_000 else { throw RPCError.invalidParams("follow at most 10000 jobs at once") }
        let seconds = min(max(params.timeoutSeconds ?? 600, 0), Self.maximumSubscribeSeconds)
        let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        let store = queue.store
        var latest: [Int64: Job] = [:]
        for id in ids {
            let job = try await store.job(id: id)
            if !call.caller.isAdmin {
                // Members do not learn which ids exist.
                guard let member = call.caller.user, await JobVisibility(store: catalog, member: member).allows(job) else {
                    throw StoreError.notFound(entity: "job", reference: String(id))
                }
            }
            latest[id] = job
            call.notify(StenoMethods.jobsChangedNotification, try JSONValueEncoder().encode(job))
        }
        while true {
            let jobs = ids.compactMap { latest[$0] }
            if jobs.allSatisfy({ !$0.state.isLive }) { return SubscribeResult(jobs: jobs, reason: "finished") }
            if params.untilFailedAttempt == true, jobs.contains(where: { $0.state == .failed || $0.state == .dead }) {
                return SubscribeResult(jobs: jobs, reason: "failed-attempt")
            }
            guard ContinuousClock.now < deadline else { return SubscribeResult(jobs: jobs, reason: "timeout") }
            try await Task.sleep(for: Self.subscribeInterval)
            for id in ids where latest[id]?.state.isLive ?? true {
                let job = try await store.job(id: id)
                if let previous = latest[id], !Self.changed(previous, job) { continue }
                latest[id] = job
                call.notify(StenoMethods.jobsChangedNotification, try JSONValueEncoder().encode(job))
            }
        }
    }

    /// Whether a client following the job would want to hear of the difference.
    static func changed(_ old: Job, _ new: Job) -> Bool {
        old.state != new.state || old.attempts != new.attempts || old.runAt != new.runAt || old.lastError != new.lastError
            || old.result != new.result || old.progress != new.progress
    }
}
