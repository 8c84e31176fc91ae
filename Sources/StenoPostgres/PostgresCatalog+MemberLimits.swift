import Foundation
import PostgresNIO
import StenoCatalog

extension PostgresCatalog {
    /// Throws `limit`'s refusal when `ownerID` is a member who has its maximum already. The
    /// owner's row is locked until the caller's transaction ends (`FOR NO KEY UPDATE`, which
    /// two such checks cannot both hold), so requests sent at once, from one daemon or several,
    /// count one after the other. An unknown owner passes (the insert reports it).
    static func checkLimit(_ limit: MemberLimit?, ownerID: Int64, nowMilliseconds: Int64, in tx: PostgresTransaction) async throws {
        guard let limit, let owner = try await tx.row("SELECT name::text, role FROM users WHERE id = \(ownerID) FOR NO KEY UPDATE")
        else { return }
        let (name, role) = try owner.decode((String, String).self)
        guard role != "admin" else { return }
        let counted: PostgresRow?
        switch limit.kind {
        case .calendarAccounts:
            counted = try await tx.row("SELECT count(*) FROM calendar_accounts WHERE owner_id = \(ownerID) AND provider <> 'device'")
        case .devices:
            counted = try await tx.row(
                """
                SELECT count(*) FROM devices d JOIN calendar_accounts a ON a.id = d.account_id
                WHERE a.owner_id = \(ownerID) AND d.revoked_at IS NULL
                """)
        case .pairingCodes:
            counted = try await tx.row(
                "SELECT count(*) FROM device_pairings WHERE owner_id = \(ownerID) AND used_at IS NULL AND expires_at >= \(nowMilliseconds)")
        }
        let count = Int(try counted?.decode(Int64.self) ?? 0)
        if !limit.admits(count) { throw limit.refusal(owner: name, count: count) }
    }
}
