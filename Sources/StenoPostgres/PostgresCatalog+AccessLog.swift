import Foundation
import PostgresNIO
import StenoCatalog
import StenoCore

extension PostgresCatalog: AccessLogStore {
    public func logAccess(_ draft: AccessDraft) async throws {
        guard draft.recordingIDs?.isEmpty != true else { return }
        try await execute(Self.logAccessStatement(draft))
    }

    /// The statement writing `draft`'s entries.
    static func logAccessStatement(_ draft: AccessDraft) -> PostgresQuery {
        .numbered(
            CatalogSQL.logAccess(
                at: "$1::bigint", action: "$2::text", actor: "$3::text", uid: "$4::bigint", detail: "$5::text",
                recordingIDs: "SELECT unnest($6::bigint[]) AS id", none: "$7::boolean"),
            [Self.milliseconds(draft.at), draft.action.rawValue, draft.actor, draft.uid.map { Int64($0) }, draft.detail, draft.recordingIDs ?? [], draft.recordingIDs == nil])
    }

    public func accessLog(_ query: AccessLogQuery) async throws -> [AccessEntry] {
        try await rows(
            .numbered(
                CatalogSQL.accessLog(
                    recording: "$1::bigint", actor: "$2::text", owner: "$3::text", since: "$4::bigint", beforeID: "$5::bigint", limit: "$6::bigint"),
                [query.recordingID, query.actor, query.owner, query.since.map(Self.milliseconds), query.beforeID, Int64(query.limit)])
        ).compactMap { row in
            let (id, at, action, recording, owner, actor, uid, detail) = try row.decode((Int64, Int64, String, Int64?, String?, String, Int64?, String?).self)
            guard let action = AccessEntry.Action(rawValue: action) else { return nil }
            return AccessEntry(
                id: id, at: Self.date(milliseconds: at), action: action, recordingID: recording, owner: owner, actor: actor,
                uid: uid.flatMap { UInt32(exactly: $0) }, detail: detail)
        }
    }

    public func pruneAccessLog(before cutoff: Date) async throws -> Int {
        try await rows("DELETE FROM access_log WHERE at < \(Self.milliseconds(cutoff)) RETURNING id").count
    }
}
