import Foundation
import Logging
import StenoCalendar
import StenoCatalog
import StenoCore

/// Opens an account for requests on its behalf (a sync, a write, a lookup): its secret
/// unsealed, and refreshed credentials sealed back into the catalog.
struct CalendarAccountAccess: Sendable {
    let store: any CatalogStore
    let secrets: SecretBox?
    /// Internal hosts and networks members' accounts may reach (`[calendars] member_networks`).
    var memberNetworks: [String] = []

    /// Runs `work` (requests for `account`) under the network policy of the account's owner.
    func enforcingPolicy<T: Sendable>(of account: CalendarAccount, _ work: () async throws -> T) async throws -> T {
        try await AccountSourcePolicy.forOwner(id: account.ownerID, in: store, memberNetworks: memberNetworks).enforcing(work)
    }

    /// The account's opened credentials; nil when it stores none.
    ///
    /// - Throws: ``CalendarSyncError/badSource(_:)`` when the daemon has no secrets key loaded,
    ///   ``SecretBoxError`` when the stored secret cannot be opened with it.
    func credentials(of accountID: Int64) async throws -> CalendarCredentials? {
        guard let sealed = try await store.sealedSecret(accountID: accountID) else { return nil }
        guard let secrets else { throw CalendarSyncError.badSource("no secrets key is loaded; the account's credentials cannot be opened") }
        return try secrets.unseal(sealed)
    }

    /// The context of one request outside a sync.
    ///
    /// - Throws: as ``credentials(of:)``, with an unopenable secret as
    ///   ``CalendarSyncError/needsCredentials(_:)``.
    func context(for account: CalendarAccount, logger: Logger) async throws -> CalendarAccountContext {
        let opened: CalendarCredentials?
        do {
            opened = try await credentials(of: account.id)
        } catch let error as SecretBoxError {
            throw CalendarSyncError.needsCredentials(error.description)
        }
        let mirror = mirror(of: account.id)
        var accountLogger = logger
        accountLogger[metadataKey: "account"] = .stringConvertible(account.id)
        return CalendarAccountContext(
            account: account, credentials: opened, saveCredentials: { try await mirror.saveCredentials($0) }, logger: accountLogger)
    }

    /// The mirror of one account over the catalog.
    func mirror(of accountID: Int64) -> CatalogCalendarMirror {
        CatalogCalendarMirror(store: store, accountID: accountID, secrets: secrets)
    }
}
