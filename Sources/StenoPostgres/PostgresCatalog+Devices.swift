import Foundation
import PostgresNIO
import StenoCatalog
import StenoCore

/// Devices, their tokens (hashes only) and pairing codes. A device is created under a lock on
/// its owner's row, so two daemons cannot give one owner two devices of the same label; a
/// pairing code is spent by one statement, so it pairs once whichever daemon redeems it.
extension PostgresCatalog: DeviceStore {
    public func addDevice(
        ownerID: Int64, label: String, timeZone: String, tokenHash: Data, limit: MemberLimit?, now: Date
    ) async throws -> DeviceRecord {
        let now = Self.milliseconds(now)
        return try await transaction { tx in
            try await Self.checkLimit(limit, ownerID: ownerID, nowMilliseconds: now, in: tx)
            return try await Self.insertDevice(tx, ownerID: ownerID, label: label, timeZone: timeZone, tokenHash: tokenHash, now: now)
        }
    }

    public func devices(ownerID: Int64?, afterID: Int64?, limit: Int) async throws -> [DeviceRecord] {
        var binds = PostgresBindings()
        binds.append(ownerID)
        binds.append(afterID ?? 0)
        binds.append(Int64(max(0, limit)))
        return try await rows(
            PostgresQuery(
                unsafeSQL: CatalogSQL.deviceSelect + " WHERE ($1::bigint IS NULL OR a.owner_id = $1) AND d.id > $2 ORDER BY d.id LIMIT $3",
                binds: binds)
        ).map(Self.device)
    }

    public func device(id: Int64) async throws -> DeviceRecord {
        guard let device = try await rows(try Self.deviceQuery(where: "d.id = $1", id)).first.map(Self.device) else {
            throw StoreError.notFound(entity: "device", reference: String(id))
        }
        return device
    }

    public func device(tokenHash: Data) async throws -> DeviceRecord? {
        try await rows(try Self.deviceQuery(where: "d.token_hash = $1 AND d.revoked_at IS NULL", tokenHash)).first.map(Self.device)
    }

    public func revokeDevice(id: Int64, now: Date) async throws -> DeviceRecord {
        let now = Self.milliseconds(now)
        return try await transaction { tx in
            guard
                let accountID = try await tx.row(
                    "UPDATE devices SET token_hash = NULL, revoked_at = coalesce(revoked_at, \(now)) WHERE id = \(id) RETURNING account_id")?
                    .decode(Int64.self)
            else { throw StoreError.notFound(entity: "device", reference: String(id)) }
            // Nothing pulls a device's events: its account is off rather than due for syncs.
            try await tx.execute(
                "UPDATE calendar_accounts SET health = 'disabled', next_sync_at = NULL, updated_at = \(now) WHERE id = \(accountID)")
            return try await Self.existingDevice(tx, id: id)
        }
    }

    public func recordDeviceContact(id: Int64, address: String?, now: Date) async throws {
        try await execute("UPDATE devices SET last_contact_at = \(Self.milliseconds(now)), last_address = \(address) WHERE id = \(id)")
    }

    public func addPairing(
        codeHash: Data, ownerID: Int64, label: String?, timeZone: String?, expiresAt: Date, limit: MemberLimit?, now: Date
    ) async throws {
        let now = Self.milliseconds(now)
        try await transaction { tx in
            // Expired codes are of no use to anyone: they go when new ones come.
            try await tx.execute("DELETE FROM device_pairings WHERE expires_at < \(now)")
            try await Self.checkLimit(limit, ownerID: ownerID, nowMilliseconds: now, in: tx)
            try await tx.execute(
                """
                INSERT INTO device_pairings (code_hash, owner_id, label, time_zone, created_at, expires_at)
                VALUES (\(codeHash), \(ownerID), \(label), \(timeZone), \(now), \(Self.milliseconds(expiresAt)))
                """)
        }
    }

    public func redeemPairing(
        codeHash: Data, tokenHash: Data, label: String, timeZone: String, deviceLimit: MemberLimit?, now: Date
    ) async throws -> DeviceRecord? {
        let now = Self.milliseconds(now)
        return try await transaction { tx in
            guard
                let pairing = try await tx.row(
                    """
                    UPDATE device_pairings SET used_at = \(now)
                    WHERE code_hash = \(codeHash) AND used_at IS NULL AND expires_at >= \(now)
                    RETURNING owner_id, label, time_zone
                    """)
            else { return nil }
            let (ownerID, pairedLabel, pairedTimeZone) = try pairing.decode((Int64, String?, String?).self)
            // A refusal rolls the transaction back: the code is not spent.
            try await Self.checkLimit(deviceLimit, ownerID: ownerID, nowMilliseconds: now, in: tx)
            return try await Self.insertDevice(
                tx, ownerID: ownerID, label: pairedLabel ?? label, timeZone: pairedTimeZone ?? timeZone, tokenHash: tokenHash, now: now)
        }
    }

    /// Creates the device's calendar account and the device.
    static func insertDevice(
        _ tx: PostgresTransaction, ownerID: Int64, label: String, timeZone: String, tokenHash: Data, now: Int64
    ) async throws -> DeviceRecord {
        guard try await tx.row("SELECT 1 FROM users WHERE id = \(ownerID) FOR UPDATE") != nil else {
            throw StoreError.notFound(entity: "user", reference: String(ownerID))
        }
        if let existing = try await tx.row(
            "SELECT d.id FROM devices d JOIN calendar_accounts a ON a.id = d.account_id WHERE a.owner_id = \(ownerID) AND d.label = \(label)")
        {
            throw StoreError.conflict(
                "device \(try existing.decode(Int64.self)) is called \"\(label)\" already; pick another label or revoke it first")
        }
        // The account's name must be unique per owner, as every account's is: the label alone
        // could clash with a revoked device's account that was kept. The device's own id,
        // drawn first, makes it so.
        guard let id = try await tx.row("SELECT nextval(pg_get_serial_sequence('devices', 'id'))")?.decode(Int64.self) else {
            throw StoreError.invalid("the server drew no device id")
        }
        guard
            let accountID = try await tx.row(
                """
                INSERT INTO calendar_accounts (provider, owner_id, display_name, settings, health, created_at, updated_at)
                VALUES ('device', \(ownerID), \(label + " (\(id))"), '{}', 'ok', \(now), \(now)) RETURNING id
                """)?.decode(Int64.self)
        else { throw StoreError.invalid("the server returned no id for the device's account") }
        try await tx.execute(
            """
            INSERT INTO devices (id, account_id, label, token_hash, time_zone, created_at)
            VALUES (\(id), \(accountID), \(label), \(tokenHash), \(timeZone), \(now))
            """)
        return try await existingDevice(tx, id: id)
    }

    static func existingDevice(_ tx: PostgresTransaction, id: Int64) async throws -> DeviceRecord {
        guard let device = try await tx.rows(try deviceQuery(where: "d.id = $1", id)).first.map(device) else {
            throw StoreError.notFound(entity: "device", reference: String(id))
        }
        return device
    }

    /// The devices matching `condition`, a fixed SQL fragment whose `$1` is `value`.
    static func deviceQuery<Value: PostgresEncodable>(where condition: String, _ value: Value) throws -> PostgresQuery {
        var binds = PostgresBindings()
        try binds.append(value)
        return PostgresQuery(unsafeSQL: CatalogSQL.deviceSelect + " WHERE " + condition, binds: binds)
    }

    static func device(_ row: PostgresRow) throws -> DeviceRecord {
        let (id, accountID, ownerID, ownerName, label, timeZone, createdAt, lastContactAt, lastAddress, revokedAt, calendars, events) =
            try row.decode((Int64, Int64, Int64, String, String, String, Int64, Int64?, String?, Int64?, Int64, Int64).self)
        return DeviceRecord(
            id: id, accountID: accountID, ownerID: ownerID, ownerName: ownerName, label: label, timeZone: timeZone,
            createdAt: date(milliseconds: createdAt), lastContactAt: lastContactAt.map(date(milliseconds:)), lastAddress: lastAddress,
            revokedAt: revokedAt.map(date(milliseconds:)), calendars: Int(calendars), events: Int(events))
    }
}
