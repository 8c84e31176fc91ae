import Foundation
import GRDB
import StenoCatalog

extension SQLiteCatalog {
    public func acquireLease(_ name: String, holder: String, duration: Duration, now: Date) async throws -> Bool {
        let nowMilliseconds = Self.milliseconds(now)
        let expiry = nowMilliseconds + duration.catalogMilliseconds
        return try await writer.write { db in
            // One statement: insert, or take over a lease that is ours or has run out.
            try db.execute(
                sql: """
                    INSERT INTO leases (name, holder, expires_at) VALUES (?, ?, ?)
                    ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
                    WHERE leases.holder = excluded.holder OR leases.expires_at <= ?
                    """, arguments: [name, holder, expiry, nowMilliseconds])
            return db.changesCount > 0
        }
    }

    public func releaseLease(_ name: String, holder: String) async throws {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM leases WHERE name = ? AND holder = ?", arguments: [name, holder])
        }
    }
}
