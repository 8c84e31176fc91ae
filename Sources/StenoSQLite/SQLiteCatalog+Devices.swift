import Foundation
import GRDB
import StenoCatalog
import StenoCore

/// Devices, their tokens (hashes only) and pairing codes.
extension SQLiteCatalog {
    public func addDevice(
        ownerID: Int64, label: String, timeZone: String, tokenHash: Data, limit: MemberLimit?, now: Date
    ) async throws -> DeviceRecord {
        try await writer.write { db in
            try Self.checkLimit(limit, ownerID: ownerID, nowMilliseconds: Self.milliseconds(now), in: db)
            return try Self.insertDevice(db, ownerID: ownerID, label: label, timeZone: timeZone, tokenHash: tokenHash, now: Self.milliseconds(now))
        }
    }

    public func devices(ownerID: Int64?, afterID: Int64?, limit: Int) async throws -> [DeviceRecord] {
        try await writer.read { db in
            try Row.fetchAll(
                db,
                sql: "\(CatalogSQL.deviceSelect) WHERE (?1 IS NULL OR a.owner_id = ?1) AND d.id > ?2 ORDER BY d.id LIMIT ?3",
                arguments: [ownerID, afterID ?? 0, limit]
            ).map(Self.device)
        }
    }

    public func device(id: Int64) async throws -> DeviceRecord {
        try await writer.read { db in try Self.fetchDevice(db, id: id) }
    }

    public func device(tokenHash: Data) async throws -> DeviceRecord? {
        try await writer.read { db in
            try Row.fetchOne(db, sql: "\(CatalogSQL.deviceSelect) WHERE d.token_hash = ? AND d.revoked_at IS NULL", arguments: [tokenHash])
                .map(Self.device)
        }
    }

    public func revokeDevice(id: Int64, now: Date) async throws -> DeviceRecord {
        try await writer.write { db in
            let device = try Self.fetchDevice(db, id: id)
            let milliseconds = Self.milliseconds(now)
            try db.execute(
                sql: "UPDATE devices SET token_hash = NULL, revoked_at = coalesce(revoked_at, ?) WHERE id = ?", arguments: [milliseconds, id])
            // Nothing pulls a device's events: its account is off rather than due for syncs.
            try db.execute(
                sql: "UPDATE calendar_accounts SET health = 'disabled', next_sync_at = NULL, updated_at = ? WHERE id = ?",
                arguments: [milliseconds, device.accountID])
            return try Self.fetchDevice(db, id: id)
        }
    }

    public func recordDeviceContact(id: Int64, address: String?, now: Date) async throws {
        try await writer.write { db in
            try db.execute(
                sql: "UPDATE devices SET last_contact_at = ?, last_address = ? WHERE id = ?",
                arguments: [Self.milliseconds(now), address, id])
        }
    }

    public func addPairing(
        codeHash: Data, ownerID: Int64, label: String?, timeZone: String?, expiresAt: Date, limit: MemberLimit?, now: Date
    ) async throws {
        try await writer.write { db in
            // Expired codes are of no use to anyone: they go when new ones come.
            try db.execute(sql: "DELETE FROM device_pairings WHERE expires_at < ?", arguments: [Self.milliseconds(now)])
            try Self.checkLimit(limit, ownerID: ownerID, nowMilliseconds: Self.milliseconds(now), in: db)
            try db.execute(
                sql: """
                    INSERT INTO device_pairings (code_hash, owner_id, label, time_zone, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [codeHash, ownerID, label, timeZone, Self.milliseconds(now), Self.milliseconds(expiresAt)])
        }
    }

    public func redeemPairing(
        codeHash: Data, tokenHash: Data, label: String, timeZone: String, deviceLimit: MemberLimit?, now: Date
    ) async throws -> DeviceRecord? {
        try await writer.write { db in
            let milliseconds = Self.milliseconds(now)
            guard
                let pairing = try Row.fetchOne(
                    db,
                    sql: "SELECT owner_id, label, time_zone FROM device_pairings WHERE code_hash = ? AND used_at IS NULL AND expires_at >= ?",
                    arguments: [codeHash, milliseconds])
            else { return nil }
            // Refused before the code is spent: once a device is revoked, the same code works.
            try Self.checkLimit(deviceLimit, ownerID: pairing["owner_id"], nowMilliseconds: milliseconds, in: db)
            try db.execute(sql: "UPDATE device_pairings SET used_at = ? WHERE code_hash = ?", arguments: [milliseconds, codeHash])
            return try Self.insertDevice(
                db, ownerID: pairing["owner_id"], label: pairing["label"] ?? label, timeZone: pairing["time_zone"] ?? timeZone,
                tokenHash: tokenHash, now: milliseconds)
        }
    }

    /// Creates the device's calendar account and the device.
    static func insertDevice(_ db: Database, ownerID: Int64, label: String, timeZone: String, tokenHash: Data, now: Int64) throws -> DeviceRecord {
        guard try Bool.fetchOne(db, sql: "SELECT 1 FROM users WHERE id = ?", arguments: [ownerID]) == true else {
            throw StoreError.notFound(entity: "user", reference: String(ownerID))
        }
        if let existing = try Int64.fetchOne(
            db,
            sql: "SELECT d.id FROM devices d JOIN calendar_accounts a ON a.id = d.account_id WHERE a.owner_id = ? AND d.label = ?",
            arguments: [ownerID, label])
        {
            throw StoreError.conflict("device \(existing) is called \"\(label)\" already; pick another label or revoke it first")
        }
        // The account's name must be unique per owner, as every account's is: the label alone
        // could clash with a revoked device's account that was kept.
        try db.execute(
            sql: """
                INSERT INTO calendar_accounts (provider, owner_id, display_name, settings, health, created_at, updated_at)
                VALUES ('device', ?, ? || ' (' || (SELECT coalesce(max(id), 0) + 1 FROM devices) || ')', '{}', 'ok', ?, ?)
                """,
            arguments: [ownerID, label, now, now])
        let accountID = db.lastInsertedRowID
        try db.execute(
            sql: "INSERT INTO devices (account_id, label, token_hash, time_zone, created_at) VALUES (?, ?, ?, ?, ?)",
            arguments: [accountID, label, tokenHash, timeZone, now])
        return try fetchDevice(db, id: db.lastInsertedRowID)
    }

    static func fetchDevice(_ db: Database, id: Int64) throws -> DeviceRecord {
        guard let row = try Row.fetchOne(db, sql: "\(CatalogSQL.deviceSelect) WHERE d.id = ?", arguments: [id]) else {
            throw StoreError.notFound(entity: "device", reference: String(id))
        }
        return device(row)
    }

    static func device(_ row: Row) -> DeviceRecord {
        DeviceRecord(
            id: row["id"], accountID: row["account_id"], ownerID: row["owner_id"], ownerName: row["owner_name"], label: row["label"],
            timeZone: row["time_zone"], createdAt: date(milliseconds: row["created_at"]),
            lastContactAt: (row["last_contact_at"] as Int64?).map(date(milliseconds:)), lastAddress: row["last_address"],
            revokedAt: (row["revoked_at"] as Int64?).map(date(milliseconds:)), calendars: row["calendar_count"], events: row["event_count"])
    }
}
