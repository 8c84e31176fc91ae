import Foundation
import GRDB
import StenoCatalog
import StenoCore

/// A device's pushed events, applied to its account's mirror.
extension SQLiteCatalog {
    public func applyDeviceEvents(_ writes: [DeviceEventWrite], accountID: Int64, now: Date) async throws -> DeviceWriteReport {
        try await writer.write { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM calendar_accounts WHERE id = ?", arguments: [accountID]) == true else {
                throw StoreError.notFound(entity: "calendar account", reference: String(accountID))
            }
            var plan = DeviceWritePlan(
                calendars: try Row.fetchAll(
                    db, sql: "SELECT remote_id, name, color, time_zone FROM calendars WHERE account_id = ?", arguments: [accountID]
                ).map { row in
                    CalendarDescriptor(remoteID: row["remote_id"], name: row["name"], color: row["color"], timeZone: row["time_zone"])
                })
            for write in writes {
                let stored = try Self.deviceRows(db, accountID: accountID, remoteID: write.remoteID, withOccurrences: write.deletesAllOccurrences)
                let request = try write.fulfilledRequest.flatMap { try Self.requestRow(db, accountID: accountID, id: $0) }
                plan.prepare(write, stored: stored, request: request)
            }
            var summary = MirrorChangeSummary()
            var changed: Set<String> = []
            let now = Self.milliseconds(now)
            for changes in plan.changeSets {
                var writer = MirrorWriter(db: db, now: now)
                summary.add(try writer.apply(changes, accountID: accountID))
                changed.formUnion(writer.changedResources)
            }
            return plan.report(changedResources: changed, changes: summary)
        }
    }

    /// The account's rows of one event (with `withOccurrences`, also every `remoteID#…` row).
    static func deviceRows(_ db: Database, accountID: Int64, remoteID: String, withOccurrences: Bool) throws -> [DeviceWritePlan.StoredRow] {
        try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT e.remote_id, c.remote_id AS calendar_remote_id, e.etag, e.deleted_at IS NOT NULL AS is_deleted,
                        m.identity AS meeting_identity
                    FROM calendars c JOIN events e ON e.calendar_id = c.id LEFT JOIN meetings m ON m.id = e.meeting_id
                    WHERE c.account_id = ?1 AND (e.remote_id = ?2 OR (?3 AND e.remote_id > ?2 || '#' AND e.remote_id < ?2 || '$'))
                    """),
            arguments: [accountID, remoteID, withOccurrences]
        ).map(storedRow)
    }

    /// A live request row of this account, by its events row id.
    static func requestRow(_ db: Database, accountID: Int64, id: Int64) throws -> DeviceWritePlan.StoredRow? {
        try Row.fetchOne(
            db,
            sql: """
                SELECT e.remote_id, c.remote_id AS calendar_remote_id, e.etag, e.deleted_at IS NOT NULL AS is_deleted,
                    m.identity AS meeting_identity
                FROM events e JOIN calendars c ON c.id = e.calendar_id LEFT JOIN meetings m ON m.id = e.meeting_id
                WHERE e.id = ? AND c.account_id = ? AND e.deleted_at IS NULL AND e.remote_id LIKE '\(DeviceEventKeys.requestPrefix)%'
                """,
            arguments: [id, accountID]
        ).map(storedRow)
    }

    static func storedRow(_ row: Row) -> DeviceWritePlan.StoredRow {
        DeviceWritePlan.StoredRow(
            remoteID: row["remote_id"], calendarRemoteID: row["calendar_remote_id"], etag: row["etag"], isDeleted: row["is_deleted"],
            meetingIdentity: row["meeting_identity"])
    }
}
