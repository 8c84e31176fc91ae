import Foundation

/// One way of finding the user a reference names (`steno users show REF`, `--owner REF`).
///
/// Both catalogs try the same lookups in the same order, so a reference names the same user on
/// either: an address (it holds `@`) by email, compared without case; digits as an id first and
/// then as a name made of digits; anything else by name.
package enum UserLookup: Sendable, Hashable {
    /// The user holding this address, lowercased.
    case email(String)
    /// The user with this id.
    case id(Int64)
    /// The user with this name.
    case name(String)

    /// The lookups to try in order for `reference` (surrounding spaces ignored); the first that
    /// finds a user answers, and none finding one is `StoreError.notFound`.
    package static func plan(for reference: String) -> [UserLookup] {
        let trimmed = reference.trimmingCharacters(in: .whitespaces)
        if trimmed.contains("@") { return [.email(trimmed.lowercased())] }
        if let id = Int64(trimmed) { return [.id(id), .name(trimmed)] }
        return [.name(trimmed)]
    }
}
