import Foundation
import StenoAPI
import StenoCatalog
import StenoCore

/// `audit.list`: the access log, for admins whole, for members about their own recordings.
struct AuditMethods: Sendable {
    let store: any AccessLogStore

    func register(in table: inout RPCMethodTable) {
        let methods = self
        table.register(StenoMethods.auditList, access: .user) { call, params in
            try await methods.list(params, caller: call.caller)
        }
    }

    func list(_ params: AuditListParams, caller: Caller) async throws -> Page<AccessEntry> {
        let limit = try PageCursor.limit(params.limit)
        // Newest first: the cursor is the last id given, and the next page is below it.
        let beforeID = try params.cursor.map(PageCursor.decode)
        // A member reads what was done to recordings that were theirs, by anyone.
        let owner = caller.isAdmin ? nil : (caller.user?.name ?? "")
        let entries = try await store.accessLog(
            AccessLogQuery(recordingID: params.recording, actor: params.user, owner: owner, since: params.since, beforeID: beforeID, limit: limit + 1))
        let page = Array(entries.prefix(limit))
        return Page(items: page, nextCursor: entries.count > limit ? page.last.map { PageCursor.encode($0.id) } : nil)
    }
}
