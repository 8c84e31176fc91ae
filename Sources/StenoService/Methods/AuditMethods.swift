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
        var beforeID: Int64?
        if let cursor = params.cursor {
            guard let id = Int64(cursor), id > 0 else { throw RPCError.invalidParams("cursor \(cursor) is not one audit.list gave") }
            beforeID = id
        }
        // A member reads what was done to recordings that were theirs, by anyone.
        let owner = caller.isAdmin ? nil : (caller.user?.name ?? "")
        let entries = try await store.accessLog(
            AccessLogQuery(recordingID: params.recording, actor: params.user, owner: owner, since: params.since, beforeID: beforeID, limit: limit + 1))
        let page = Array(entries.prefix(limit))
        return Page(items: page, nextCursor: entries.count > limit ? page.last.map { String($0.id) } : nil)
    }
}
