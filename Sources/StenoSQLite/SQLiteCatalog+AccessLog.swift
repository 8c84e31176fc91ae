import Foundation
import GRDB
import StenoCatalog
import StenoCore

extension SQLiteCatalog: AccessLogStore {
    public func logAccess(_ draft: AccessDraft) async throws {
        guard draft.recordingIDs?.isEmpty != true else { return }
        try await writer.write { db in try Self.logAccess(draft, in: db) }
    }

    /// Writes `draft`'s entries inside the caller's transaction.
    static func logAccess(_ draft: AccessDraft, in db: Database) throws {
        guard draft.recordingIDs?.isEmpty != true else { return }
        try db.cachedStatement(
            sql: CatalogSQL.logAccess(
                at: "?1", action: "?2", actor: "?3", uid: "?4", detail: "?5", recordingIDs: "SELECT value AS id FROM json_each(?6)", none: "?7")
        ).execute(arguments: [
            Self.milliseconds(draft.at), draft.action.rawValue, draft.actor, draft.uid.map { Int64($0) }, draft.detail,
            Self.jsonArray(draft.recordingIDs ?? []), draft.recordingIDs == nil,
        ])
    }

    public func accessLog(_ query: AccessLogQuery) async throws -> [AccessEntry] {
        try await writer.read { db in
            try Row.fetchAll(
                db.cachedStatement(sql: CatalogSQL.accessLog(recording: "?1", actor: "?2", owner: "?3", since: "?4", beforeID: "?5", limit: "?6")),
                arguments: [query.recordingID, query.actor, query.owner, query.since.map(Self.milliseconds), query.beforeID, query.limit]
            ).compactMap { row in
                guard let action = AccessEntry.Action(rawValue: row[2]) else { return nil }
                let uid: Int64? = row[6]
                return AccessEntry(
                    id: row[0], at: Self.date(milliseconds: row[1]), action: action, recordingID: row[3], owner: row[4], actor: row[5],
                    uid: uid.flatMap { UInt32(exactly: $0) }, detail: row[7])
            }
        }
    }

    public func pruneAccessLog(before cutoff: Date) async throws -> Int {
        try await writer.write { db in
            try db.cachedStatement(sql: "DELETE FROM access_log WHERE at < ?").execute(arguments: [Self.milliseconds(cutoff)])
            return db.changesCount
        }
    }
}
