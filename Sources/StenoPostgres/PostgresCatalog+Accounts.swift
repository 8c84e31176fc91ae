import Foundation
import PostgresNIO
import StenoCatalog
import StenoCore

/// Calendar accounts: their settings, sealed credentials, sync state and health. Each change is
/// one statement, so daemons sharing the catalog never lose each other's updates.
extension PostgresCatalog {
    public func addAccount(_ draft: CalendarAccountDraft, limit: MemberLimit?, now: Date) async throws -> CalendarAccount {
        let settings = try AccountSettingsColumn.text(draft.settings)
        let milliseconds = Self.milliseconds(now)
        return try await transaction { tx in
            // The owner's row stays locked, so the owner cannot go between the check and the insert.
            guard try await tx.row("SELECT 1 FROM users WHERE id = \(draft.ownerID) FOR KEY SHARE") != nil else {
                throw StoreError.notFound(entity: "user", reference: String(draft.ownerID))
            }
            try await Self.checkLimit(limit, ownerID: draft.ownerID, nowMilliseconds: milliseconds, in: tx)
            let inserted = try await tx.row(
                """
                INSERT INTO calendar_accounts (provider, owner_id, display_name, settings, secret, next_sync_at, created_at, updated_at)
                VALUES (\(draft.provider.rawValue), \(draft.ownerID), \(draft.displayName), \(settings), \(draft.sealedSecret),
                    \(milliseconds), \(milliseconds), \(milliseconds))
                ON CONFLICT (provider, owner_id, display_name) DO NOTHING
                RETURNING \(unescaped: CatalogSQL.accountColumns)
                """)
            if let inserted { return try Self.account(inserted) }
            let existing = try await tx.row(
                """
                SELECT id FROM calendar_accounts
                WHERE provider = \(draft.provider.rawValue) AND owner_id = \(draft.ownerID) AND display_name = \(draft.displayName)
                """)?.decode(Int64.self)
            throw StoreError.conflict(
                "account \(existing.map(String.init) ?? "?") already mirrors \(draft.displayName) (\(draft.provider.rawValue)) for this owner")
        }
    }

    public func accounts(ownerID: Int64?) async throws -> [CalendarAccount] {
        try await rows(
            """
            SELECT \(unescaped: CatalogSQL.accountColumns) FROM calendar_accounts
            WHERE \(ownerID)::bigint IS NULL OR owner_id = \(ownerID) ORDER BY id
            """
        ).map(Self.account)
    }

    public func account(id: Int64) async throws -> CalendarAccount {
        guard let row = try await row("SELECT \(unescaped: CatalogSQL.accountColumns) FROM calendar_accounts WHERE id = \(id)") else {
            throw StoreError.notFound(entity: "calendar account", reference: String(id))
        }
        return try Self.account(row)
    }

    public func removeAccount(id: Int64) async throws -> CalendarAccount {
        guard let row = try await row("DELETE FROM calendar_accounts WHERE id = \(id) RETURNING \(unescaped: CatalogSQL.accountColumns)") else {
            throw StoreError.notFound(entity: "calendar account", reference: String(id))
        }
        return try Self.account(row)
    }

    public func sealedSecret(accountID: Int64) async throws -> Data? {
        guard let row = try await row("SELECT secret FROM calendar_accounts WHERE id = \(accountID)") else {
            throw StoreError.notFound(entity: "calendar account", reference: String(accountID))
        }
        return try row.decode(ByteBuffer?.self).map { Data($0.readableBytesView) }
    }

    public func replaceSecret(accountID: Int64, sealed: Data?) async throws {
        try await updateAccount(
            "UPDATE calendar_accounts SET secret = \(sealed), updated_at = \(Self.milliseconds(Date())) WHERE id = \(accountID) RETURNING id",
            id: accountID)
    }

    public func renewAccount(
        id: Int64, displayName: String, settings: [String: String], sealedSecret: Data?, movedCalendar: CalendarMove?, now: Date
    ) async throws -> CalendarAccount {
        let settingsText = try AccountSettingsColumn.text(settings)
        let milliseconds = Self.milliseconds(now)
        return try await transaction { tx in
            guard let locked = try await tx.row("SELECT provider, owner_id FROM calendar_accounts WHERE id = \(id) FOR UPDATE") else {
                throw StoreError.notFound(entity: "calendar account", reference: String(id))
            }
            let (provider, ownerID) = try locked.decode((String, Int64).self)
            if let existing = try await tx.row(
                """
                SELECT id FROM calendar_accounts
                WHERE provider = \(provider) AND owner_id = \(ownerID) AND display_name = \(displayName) AND id <> \(id)
                """)?.decode(Int64.self)
            {
                throw StoreError.conflict("account \(existing) already mirrors \(displayName) (\(provider)) for this owner")
            }
            if let move = movedCalendar, move.from != move.to {
                try await tx.execute(
                    """
                    UPDATE calendars SET remote_id = \(move.to), updated_at = \(milliseconds)
                    WHERE account_id = \(id) AND remote_id = \(move.from)
                    """)
            }
            guard
                let row = try await tx.row(
                    """
                    UPDATE calendar_accounts SET display_name = \(displayName), settings = \(settingsText), secret = \(sealedSecret),
                        updated_at = \(milliseconds)
                    WHERE id = \(id) RETURNING \(unescaped: CatalogSQL.accountColumns)
                    """)
            else { throw StoreError.notFound(entity: "calendar account", reference: String(id)) }
            return try Self.account(row)
        }
    }

    public func accountsWithSealedSecrets() async throws -> [Int64] {
        try await rows("SELECT id FROM calendar_accounts WHERE secret IS NOT NULL ORDER BY id").map { try $0.decode(Int64.self) }
    }

    public func forgetSealedSecrets(reason: String, now: Date) async throws -> Int {
        let at = Self.milliseconds(now)
        return try await rows(
            """
            UPDATE calendar_accounts SET secret = NULL, health = 'needs-credentials', last_error = \(reason), last_error_at = \(at),
                updated_at = \(at)
            WHERE secret IS NOT NULL RETURNING id
            """
        ).count
    }

    public func updateSettings(accountID: Int64, settings: [String: String]) async throws {
        let text = try AccountSettingsColumn.text(settings)
        try await updateAccount(
            "UPDATE calendar_accounts SET settings = \(text), updated_at = \(Self.milliseconds(Date())) WHERE id = \(accountID) RETURNING id",
            id: accountID)
    }

    public func saveAccountState(accountID: Int64, syncState: String?, capabilities: String?) async throws {
        try await updateAccount(
            """
            UPDATE calendar_accounts SET sync_state = coalesce(\(syncState), sync_state),
                capabilities = coalesce(\(capabilities), capabilities), updated_at = \(Self.milliseconds(Date()))
            WHERE id = \(accountID) RETURNING id
            """,
            id: accountID)
    }

    public func recordSyncResult(accountID: Int64, _ result: AccountSyncResult) async throws {
        let updatedAt = Self.milliseconds(Date())
        switch result {
        case .succeeded(let at, let next):
            try await updateAccount(
                """
                UPDATE calendar_accounts SET health = CASE health WHEN 'disabled' THEN health ELSE 'ok' END,
                    last_success_at = \(Self.milliseconds(at)), next_sync_at = \(Self.milliseconds(next)), updated_at = \(updatedAt)
                WHERE id = \(accountID) RETURNING id
                """,
                id: accountID)
        case .failed(let at, let message, let health, let next):
            try await updateAccount(
                """
                UPDATE calendar_accounts SET health = \(health.rawValue), last_error = \(CredentialRedaction.redacted(message)),
                    last_error_at = \(Self.milliseconds(at)), next_sync_at = \(next.map(Self.milliseconds)), updated_at = \(updatedAt)
                WHERE id = \(accountID) RETURNING id
                """,
                id: accountID)
        }
    }

    public func accountsDue(at now: Date) async throws -> [Int64] {
        try await rows(
            """
            SELECT id FROM calendar_accounts
            WHERE health NOT IN ('disabled', 'needs-credentials') AND (next_sync_at IS NULL OR next_sync_at <= \(Self.milliseconds(now)))
            ORDER BY id
            """
        ).map { try $0.decode(Int64.self) }
    }

    /// Runs an `UPDATE … RETURNING id` of one account; `.notFound` when it changed none.
    func updateAccount(_ update: PostgresQuery, id: Int64) async throws {
        guard try await row(update) != nil else { throw StoreError.notFound(entity: "calendar account", reference: String(id)) }
    }

    static func account(_ row: PostgresRow) throws -> CalendarAccount {
        let columns = row.makeRandomAccess()
        return CalendarAccount(
            id: try columns["id"].decode(Int64.self),
            provider: CalendarProviderKind(rawValue: try columns["provider"].decode(String.self)) ?? .ics,
            ownerID: try columns["owner_id"].decode(Int64.self),
            displayName: try columns["display_name"].decode(String.self),
            settings: AccountSettingsColumn.settings(try columns["settings"].decode(String.self)),
            hasSecret: try columns["has_secret"].decode(Bool.self),
            syncState: try columns["sync_state"].decode(String?.self),
            capabilities: try columns["capabilities"].decode(String?.self),
            health: AccountHealth(rawValue: try columns["health"].decode(String.self)) ?? .failing,
            lastSuccessAt: try columns["last_success_at"].decode(Int64?.self).map(date(milliseconds:)),
            lastError: try columns["last_error"].decode(String?.self),
            lastErrorAt: try columns["last_error_at"].decode(Int64?.self).map(date(milliseconds:)),
            nextSyncAt: try columns["next_sync_at"].decode(Int64?.self).map(date(milliseconds:)),
            createdAt: date(milliseconds: try columns["created_at"].decode(Int64.self)))
    }
}
