import Foundation
import StenoCalendar
import StenoCore
import StenoStore

/// What an account's sources may reach, decided by who owns it: an admin's account reads
/// whatever the daemon can; a member's account only what the member could read themselves,
/// checked at every sync as well as when the account is added.
struct AccountSourcePolicy: Sendable, Hashable {
    /// Whose permissions local calendar files are read with.
    var fileAccess: LocalFileAccess

    /// No restriction: accounts owned by admins.
    static let unrestricted = AccountSourcePolicy(fileAccess: .unrestricted)

    /// The policy for accounts of `owner`; an owner that no longer exists gets the narrowest.
    static func forOwner(_ owner: User?) -> AccountSourcePolicy {
        guard let owner else { return AccountSourcePolicy(fileAccess: .member(uids: [])) }
        if owner.role == .admin { return .unrestricted }
        return AccountSourcePolicy(fileAccess: .member(uids: Set(owner.uids)))
    }

    /// The policy for accounts owned by the user with id `ownerID`.
    static func forOwner(id ownerID: Int64, in store: any CatalogStore) async throws -> AccountSourcePolicy {
        do {
            return forOwner(try await store.user(matching: String(ownerID)))
        } catch StoreError.notFound {
            return forOwner(nil)
        }
    }
}
