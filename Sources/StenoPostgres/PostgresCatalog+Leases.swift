import Foundation
import StenoCatalog

extension PostgresCatalog: LeaseStore {
    public func acquireLease(_ name: String, holder: String, duration: Duration, now: Date) async throws -> Bool {
        let nowMilliseconds = Self.milliseconds(now)
        let expiry = nowMilliseconds + duration.catalogMilliseconds
        // One statement: insert, or take over a lease that is ours or has run out. Two daemons
        // racing for a free lease serialize on its row; the loser's update finds the winner's
        // fresh expiry and changes nothing.
        let rows = try await rows(
            """
            INSERT INTO leases (name, holder, expires_at) VALUES (\(name), \(holder), \(expiry))
            ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
            WHERE leases.holder = excluded.holder OR leases.expires_at <= \(nowMilliseconds)
            RETURNING holder
            """)
        return !rows.isEmpty
    }

    public func releaseLease(_ name: String, holder: String) async throws {
        try await execute("DELETE FROM leases WHERE name = \(name) AND holder = \(holder)")
    }
}
