import Foundation
import GRDB
import StenoCatalog
import StenoCore
import StenoJSON

extension SQLiteCatalog {

    public func addAccount(_ draft: CalendarAccountDraft, limit: MemberLimit?, now: Date) async throws -> CalendarAccount {
        let settings = try AccountSettingsColumn.text(draft.settings)
        return try await writer.write { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM users WHERE id = ?", arguments: [draft.ownerID]) == true else {
                throw StoreError.notFound(entity: "user", reference: String(draft.ownerID))
            }
            try Self.checkLimit(limit, ownerID: draft.ownerID, nowMilliseconds: Self.milliseconds(now), in: db)
            if let existing = try Int64.fetchOne(
                db, sql: "SELECT id FROM calendar_accounts WHERE provider = ? AND owner_id = ? AND display_name = ?",
                arguments: [draft.provider.rawValue, draft.ownerID, draft.displayName])
            {
                throw StoreError.conflict(
                    "account \(existing) already mirrors \(draft.displayName) (\(draft.provider.rawValue)) for this owner")
            }
            let milliseconds = Self.milliseconds(now)
            try db.execute(
                sql: """
                    INSERT INTO calendar_accounts (provider, owner_id, display_name, settings, secret, next_sync_at, created_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    draft.provider.rawValue, draft.ownerID, draft.displayName, settings, draft.sealedSecret, milliseconds,
                    milliseconds, milliseconds,
                ])
            return try Self.fetchAccount(db, id: db.lastInsertedRowID)
        }
    }

    public func accounts(ownerID: Int64?) async throws -> [CalendarAccount] {
        try await writer.read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT \(CatalogSQL.accountColumns) FROM calendar_accounts WHERE ?1 IS NULL OR owner_id = ?1 ORDER BY id",
                arguments: [ownerID]
            ).map(Self.account)
        }
    }

    public func account(id: Int64) async throws -> CalendarAccount {
        try await writer.read { db in try Self.fetchAccount(db, id: id) }
    }

    public func removeAccount(id: Int64) async throws -> CalendarAccount {
        try await writer.write { db in
            let account = try Self.fetchAccount(db, id: id)
            try db.execute(sql: "DELETE FROM calendar_accounts WHERE id = ?", arguments: [id])
            return account
        }
    }

    public func sealedSecret(accountID: Int64) async throws -> Data? {
        try await writer.read { db in
            _ = try Self.fetchAccount(db, id: accountID)
            return try Data.fetchOne(db, sql: "SELECT secret FROM calendar_accounts WHERE id = ?", arguments: [accountID])
        }
    }

    public func replaceSecret(accountID: Int64, sealed: Data?) async throws {
        try await updateAccount(accountID, sql: "secret = ?", arguments: [sealed])
    }

    public func renewAccount(
        id: Int64, displayName: String, settings: [String: String], sealedSecret: Data?, movedCalendar: CalendarMove?, now: Date
    ) async throws -> CalendarAccount {
        let settingsText = try AccountSettingsColumn.text(settings)
        let milliseconds = Self.milliseconds(now)
        return try await writer.write { db in
            let account = try Self.fetchAccount(db, id: id)
            if let existing = try Int64.fetchOne(
                db, sql: "SELECT id FROM calendar_accounts WHERE provider = ? AND owner_id = ? AND display_name = ? AND id <> ?",
                arguments: [account.provider.rawValue, account.ownerID, displayName, id])
            {
                throw StoreError.conflict("account \(existing) already mirrors \(displayName) (\(account.provider.rawValue)) for this owner")
            }
            try db.execute(
                sql: "UPDATE calendar_accounts SET display_name = ?, settings = ?, secret = ?, updated_at = ? WHERE id = ?",
                arguments: [displayName, settingsText, sealedSecret, milliseconds, id])
            if let move = movedCalendar, move.from != move.to {
                try db.execute(
                    sql: "UPDATE calendars SET remote_id = ?, updated_at = ? WHERE account_id = ? AND remote_id = ?",
                    arguments: [move.to, milliseconds, id, move.from])
            }
            return try Self.fetchAccount(db, id: id)
        }
    }

    /// The accounts holding sealed credentials, by id.
    public func accountsWithSealedSecrets() async throws -> [Int64] {
        try await writer.read { db in
            try Int64.fetchAll(db, sql: "SELECT id FROM calendar_accounts WHERE secret IS NOT NULL ORDER BY id")
        }
    }

    /// Drops every sealed secret (the key that opens them is gone), leaving those accounts
    /// `needs-credentials` with `reason`; returns how many there were.
    public func forgetSealedSecrets(reason: String, now: Date) async throws -> Int {
        try await writer.write { db in
            try db.execute(
                sql: """
                    UPDATE calendar_accounts SET secret = NULL, health = 'needs-credentials', last_error = ?, last_error_at = ?,
                        updated_at = ?
                    WHERE secret IS NOT NULL
                    """,
                arguments: [reason, Self.milliseconds(now), Self.milliseconds(now)])
            return db.changesCount
        }
    }

    public func updateSettings(accountID: Int64, settings: [String: String]) async throws {
        try await updateAccount(accountID, sql: "settings = ?", arguments: [try AccountSettingsColumn.text(settings)])
    }

    public func saveAccountState(accountID: Int64, syncState: String?, capabilities: String?) async throws {
        try await updateAccount(
            accountID, sql: "sync_state = coalesce(?, sync_state), capabilities = coalesce(?, capabilities)",
            arguments: [syncState, capabilities])
    }

    public func recordSyncResult(accountID: Int64, _ result: AccountSyncResult) async throws {
        switch result {
        case .succeeded(let at, let next):
            try await updateAccount(
                accountID, sql: "health = CASE health WHEN 'disabled' THEN health ELSE 'ok' END, last_success_at = ?, next_sync_at = ?",
                arguments: [Self.milliseconds(at), Self.milliseconds(next)])
        case .failed(let at, let message, let health, let next):
            try await updateAccount(
                accountID, sql: "health = ?, last_error = ?, last_error_at = ?, next_sync_at = ?",
                arguments: [health.rawValue, CredentialRedaction.redacted(message), Self.milliseconds(at), next.map(Self.milliseconds)])
        }
    }

    public func accountsDue(at now: Date) async throws -> [Int64] {
        try await writer.read { db in
            try Int64.fetchAll(
                db,
                sql: """
                    SELECT id FROM calendar_accounts
                    WHERE health NOT IN ('disabled', 'needs-credentials') AND (next_sync_at IS NULL OR next_sync_at <= ?) ORDER BY id
                    """,
                arguments: [Self.milliseconds(now)])
        }
    }

    /// Sets columns of one account (and `updated_at`); `.notFound` when there is none.
    func updateAccount(_ id: Int64, sql assignments: String, arguments: StatementArguments) async throws {
        try await writer.write { db in
            try db.execute(
                sql: "UPDATE calendar_accounts SET \(assignments), updated_at = ? WHERE id = ?",
                arguments: arguments + [Self.milliseconds(Date()), id])
            guard db.changesCount > 0 else { throw StoreError.notFound(entity: "calendar account", reference: String(id)) }
        }
    }

    static func fetchAccount(_ db: Database, id: Int64) throws -> CalendarAccount {
        guard let row = try Row.fetchOne(db, sql: "SELECT \(CatalogSQL.accountColumns) FROM calendar_accounts WHERE id = ?", arguments: [id]) else {
            throw StoreError.notFound(entity: "calendar account", reference: String(id))
        }
        return account(row)
    }

    static func account(_ row: Row) -> CalendarAccount {
        let settings = AccountSettingsColumn.settings(row["settings"])
        return CalendarAccount(
            id: row["id"],
            provider: CalendarProviderKind(rawValue: row["provider"]) ?? .ics,
            ownerID: row["owner_id"],
            displayName: row["display_name"],
            settings: settings,
            hasSecret: row["has_secret"],
            syncState: row["sync_state"],
            capabilities: row["capabilities"],
            health: AccountHealth(rawValue: row["health"]) ?? .failing,
            lastSuccessAt: (row["last_success_at"] as Int64?).map(date(milliseconds:)),
            lastError: row["last_error"],
            lastErrorAt: (row["last_error_at"] as Int64?).map(date(milliseconds:)),
            nextSyncAt: (row["next_sync_at"] as Int64?).map(date(milliseconds:)),
            createdAt: date(milliseconds: row["created_at"]))
    }

}
