import Foundation
import GRDB
import StenoCatalog

extension SQLiteCatalog {
    /// Throws `limit`'s refusal when `ownerID` is a member who has its maximum already. Runs in
    /// the caller's write transaction, which SQLite runs alone, so nothing is added between the
    /// count and the caller's insert. An unknown owner passes (the insert reports it).
    static func checkLimit(_ limit: MemberLimit?, ownerID: Int64, nowMilliseconds: Int64, in db: Database) throws {
        guard let limit, let owner = try Row.fetchOne(db, sql: "SELECT name, role FROM users WHERE id = ?", arguments: [ownerID]),
            owner["role"] as String? != "admin"
        else { return }
        let count: Int
        switch limit.kind {
        case .calendarAccounts:
            count = try Int.fetchOne(
                db, sql: "SELECT count(*) FROM calendar_accounts WHERE owner_id = ? AND provider <> 'device'", arguments: [ownerID]) ?? 0
        case .devices:
            count = try Int.fetchOne(
                db,
                sql: """
                    SELECT count(*) FROM devices d JOIN calendar_accounts a ON a.id = d.account_id
                    WHERE a.owner_id = ? AND d.revoked_at IS NULL
                    """,
                arguments: [ownerID]) ?? 0
        case .pairingCodes:
            count = try Int.fetchOne(
                db, sql: "SELECT count(*) FROM device_pairings WHERE owner_id = ? AND used_at IS NULL AND expires_at >= ?",
                arguments: [ownerID, nowMilliseconds]) ?? 0
        }
        if !limit.admits(count) { throw limit.refusal(owner: owner["name"] ?? "#\(ownerID)", count: count) }
    }
}
