import Foundation
import StenoCalendar
import StenoCatalog
import StenoCore

/// What an account's sources may reach, decided by who owns it: an admin's account reads
/// whatever the daemon can; a member's account only what the member could read themselves,
/// checked at every sync as well as when the account is added.
struct AccountSourcePolicy: Sendable, Hashable {
    /// Whose permissions local calendar files are read with.
    var fileAccess: LocalFileAccess
    /// Where its requests may go; nil: anywhere.
    var network: HTTPDestinationPolicy?

    /// No restriction: accounts owned by admins.
    static let unrestricted = AccountSourcePolicy(fileAccess: .unrestricted, network: nil)

    /// The policy for accounts of `owner`, whose requests may reach public addresses and the
    /// internal ones in `memberNetworks`; an owner that no longer exists gets the narrowest.
    static func forOwner(_ owner: User?, memberNetworks: [String]) -> AccountSourcePolicy {
        if owner?.role == .admin { return .unrestricted }
        return AccountSourcePolicy(
            fileAccess: .member(uids: Set(owner?.uids ?? [])), network: HTTPDestinationPolicy(allowing: memberNetworks))
    }

    /// The policy for accounts owned by the user with id `ownerID`.
    static func forOwner(id ownerID: Int64, in store: any CatalogStore, memberNetworks: [String]) async throws -> AccountSourcePolicy {
        do {
            return forOwner(try await store.user(matching: String(ownerID)), memberNetworks: memberNetworks)
        } catch StoreError.notFound {
            return forOwner(nil, memberNetworks: memberNetworks)
        }
    }

    /// Runs `work` with the network policy in force for every request it makes.
    func enforcing<T: Sendable>(_ work: () async throws -> T) async throws -> T {
        try await HTTPTransport.$destinationPolicy.withValue(network) { try await work() }
    }

    /// Checks an account's URL settings against the network policy (before it is stored).
    ///
    /// - Throws: ``HTTPTransportError/forbiddenDestination(url:reason:)``.
    func checkURLs(in settings: [String: String]) throws {
        guard let network else { return }
        for key in ["source", "url", "token_url", "authority", "graph_url"] {
            guard let text = settings[key], let url = URL(string: text), url.scheme?.hasPrefix("http") == true else { continue }
            try network.check(url)
        }
    }
}
