import Foundation
import StenoAPI
import StenoCore
import StenoStore

/// `jobs.*`: the durable queue, for operators. Listing is open to every known user (jobs
/// carry paths and kinds, no content); changing jobs is for admins.
struct JobMethods: Sendable {
    let queue: JobQueue
    /// The kinds this daemon runs; `jobs.enqueue` refuses others, which nobody would claim.
    let kinds: Set<String>

    func register(in table: inout RPCMethodTable) {
        let queue = self.queue
        let store = queue.store
        let kinds = self.kinds
        table.register(StenoMethods.jobsList, access: .user) { _, params in
            let limit = try PageCursor.limit(params.limit)
            let after = try params.cursor.map(PageCursor.decode)
            let jobs = try await store.jobs(state: params.state, kind: params.kind, afterID: after, limit: limit + 1)
            let page = Array(jobs.prefix(limit))
            return Page(items: page, nextCursor: jobs.count > limit ? page.last.map { PageCursor.encode($0.id) } : nil)
        }
        table.register(StenoMethods.jobsGet, access: .user) { _, params in
            try await store.job(id: params.id)
        }
        table.register(StenoMethods.jobsRetry, access: .admin) { call, params in
            let job = try await store.retryJob(id: params.id, now: Date())
            queue.wake()
            call.logger.info("job retried", metadata: ["job": "\(job.id)", "uid": "\(call.caller.credentials.uid)"])
            return job
        }
        table.register(StenoMethods.jobsCancel, access: .admin) { call, params in
            let job = try await store.cancelJob(id: params.id, now: Date())
            call.logger.info("job cancelled", metadata: ["job": "\(job.id)", "uid": "\(call.caller.credentials.uid)"])
            return job
        }
        table.register(StenoMethods.jobsEnqueue, access: .admin) { _, params in
            guard kinds.contains(params.kind) else {
                throw RPCError.invalidParams(
                    "this daemon runs no jobs of kind \"\(params.kind)\" (it runs: \(kinds.sorted().joined(separator: ", ")))",
                    data: ["kind": .string(params.kind)])
            }
            let payload = params.payload ?? .object([:])
            guard case .object = payload else {
                throw RPCError.invalidParams("payload must be a JSON object", data: ["payload": payload])
            }
            let result = try await queue.enqueue(
                JobDraft(
                    kind: params.kind, payload: payload.serializedString, priority: params.priority ?? JobPriority.interactive,
                    maxAttempts: params.maxAttempts, runAt: params.runAt, uniqueKey: params.uniqueKey))
            return JobEnqueueResult(job: result.job, alreadyLive: !result.isNew)
        }
    }
}
