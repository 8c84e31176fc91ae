import Foundation
import StenoAPI
import StenoCatalog
import StenoCore

/// `recordings.*`: the catalogue of recordings, filtered by what the caller may see.
struct RecordingMethods: Sendable {
    let store: any RecordingStore & UserStore & LinkStore & RecordingDeletionStore & RetentionStore & AccessLogStore
    let queue: JobQueue
    let inbox: Inbox

    func register(in table: inout RPCMethodTable) {
        let store = self.store
        table.register(StenoMethods.recordingsList, access: .user) { call, params in
            let limit = try PageCursor.limit(params.limit)
            let sort = params.sort ?? .recorded
            let order = RecordingOrder(sort: sort, descending: params.descending ?? sort.isDescendingByDefault)
            let (afterID, after) = try PageCursor.recordingContinuation(params.cursor, in: order)
            var query = RecordingQuery(
                status: params.status, from: params.from, to: params.to, afterID: afterID, order: order, after: after,
                limit: limit + 1, visibleTo: Self.visibility(of: call.caller), withWarnings: params.warnings ?? false)
            if let owner = params.owner { query.ownerID = try await store.user(matching: owner).id }
            let recordings = try await store.recordings(query)
            let page = Array(recordings.prefix(limit))
            return Page(
                items: page, nextCursor: recordings.count > limit ? page.last.map { PageCursor.encode(after: $0, in: order) } : nil)
        }
        table.register(StenoMethods.recordingsGet, access: .user) { call, params in
            var recording = try await store.recording(id: params.id, visibleTo: Self.visibility(of: call.caller))
            // Whoever may see the recording may see the meeting it is bound to: it is visible
            // to them through that very link (or through their own recording).
            recording.meeting = try await store.link(recordingID: recording.id).flatMap(RecordingMeeting.init)
            return recording
        }
        let ingest = self
        table.register(StenoMethods.recordingsIngest, access: .user) { call, params in
            try await ingest.enqueue(params.paths, for: call.caller)
        }
        registerOpen(in: &table)
        registerDeletion(in: &table)
    }

    /// Members see their own recordings; admins everything.
    static func visibility(of caller: Caller) -> Int64? {
        caller.isAdmin ? nil : (caller.user?.id ?? -1)
    }

    /// Queues an ingest job for every file at or below the given paths, ahead of bulk work.
    func enqueue(_ paths: [String], for caller: Caller) async throws -> IngestResult {
        guard !paths.isEmpty else { throw RPCError.invalidParams("give at least one path to ingest") }
        var jobs: [IngestResult.IngestJob] = []
        for path in paths {
            guard let relative = inbox.relative(ofGiven: path) else {
                throw RPCError.invalidParams("\(path) is not inside the inbox \(inbox.root)", data: ["path": .string(path)])
            }
            if !caller.isAdmin {
                guard let name = caller.user?.name, relative == name || relative.hasPrefix(name + "/") else {
                    throw RPCError.notPermitted("members may ingest only inside their own inbox folder (\(inbox.root)/\(caller.user?.name ?? "NAME")/)")
                }
            }
            let absolute = inbox.absolute(relative)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: absolute, isDirectory: &isDirectory) else {
                throw RPCError.notFound("no file or folder \(absolute)", data: ["path": .string(absolute)])
            }
            let files = isDirectory.boolValue
                ? InboxScanner.scan(inbox: inbox.root, relativeFolder: relative).files.keys.sorted() : [relative]
            let chunks = IngestJobHandler.chunks(files)
            let queued = try await queue.enqueue(chunks.map { try IngestJobHandler.draft(paths: $0, priority: JobPriority.interactive) })
            for (chunk, result) in zip(chunks, queued) { jobs += chunk.map { .init(path: $0, jobID: result.job.id) } }
        }
        return IngestResult(jobs: jobs)
    }
}
