import Foundation
import StenoAPI
import StenoCatalog
import StenoCore

/// `jobs.*`: the durable queue, for operators. Admins see and change every job; members see
/// only the jobs of their own accounts, inbox folder and recordings (``JobVisibility``).
struct JobMethods: Sendable {
    let queue: JobQueue
    /// Where the owners of accounts and recordings are looked up.
    let catalog: any CatalogStore & RecordingStore
    /// The kinds this daemon runs; `jobs.enqueue` refuses others, which nobody would claim.
    let kinds: Set<String>

    func register(in table: inout RPCMethodTable) {
        let queue = self.queue
        let store = queue.store
        let kinds = self.kinds
        let catalog = self.catalog
        table.register(StenoMethods.jobsList, access: .user) { call, params in
            let limit = try PageCursor.limit(params.limit)
            let after = try params.cursor.map(PageCursor.decode)
            // Pages continue after the last job shown, in the order asked for.
            let fetch: (Int64?, Int) async throws -> [Job] =
                params.newestFirst == true
                ? { try await store.newestJobs(state: params.state, kind: params.kind, beforeID: $0, limit: $1) }
                : { try await store.jobs(state: params.state, kind: params.kind, afterID: $0, limit: $1) }
            guard !call.caller.isAdmin else {
                let jobs = try await fetch(after, limit + 1)
                let page = Array(jobs.prefix(limit))
                return Page(items: page, nextCursor: jobs.count > limit ? page.last.map { PageCursor.encode($0.id) } : nil)
            }
            return try await Self.memberPage(fetch: fetch, catalog: catalog, member: call.caller.user, after: after, limit: limit)
        }
        table.register(StenoMethods.jobsGet, access: .user) { call, params in
            let job = try await store.job(id: params.id)
            guard call.caller.isAdmin else {
                // Members do not learn which ids exist.
                guard let member = call.caller.user, await JobVisibility(store: catalog, member: member).allows(job) else {
                    throw StoreError.notFound(entity: "job", reference: String(params.id))
                }
                return job
            }
            return job
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
        registerSubscribe(in: &table)
    }

    /// Rows read at most for one page of a member's jobs: a member with few jobs among many
    /// gets a short page and a cursor rather than a scan of the whole queue.
    static let memberScanLimit = 2_000

    /// One page of the jobs `member` may see, after the job id `after` in the order of `fetch`
    /// (jobs after an id, at most a count).
    static func memberPage(
        fetch: (Int64?, Int) async throws -> [Job], catalog: any CatalogStore & RecordingStore, member: User?, after: Int64?, limit: Int
    ) async throws -> Page<Job> {
        guard let member else { return Page(items: [], nextCursor: nil) }
        let visibility = JobVisibility(store: catalog, member: member)
        var visible: [Job] = []
        var cursor = after
        var scanned = 0
        while scanned < memberScanLimit {
            let wanted = min(500, memberScanLimit - scanned)
            let batch = try await fetch(cursor, wanted)
            for job in batch {
                cursor = job.id
                scanned += 1
                guard await visibility.allows(job) else { continue }
                visible.append(job)
                if visible.count == limit {
                    let more = !(try await fetch(job.id, 1).isEmpty)
                    return Page(items: visible, nextCursor: more ? PageCursor.encode(job.id) : nil)
                }
            }
            if batch.count < wanted { return Page(items: visible, nextCursor: nil) }
        }
        return Page(items: visible, nextCursor: cursor.map(PageCursor.encode))
    }
}
