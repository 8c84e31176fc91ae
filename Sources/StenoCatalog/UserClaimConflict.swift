/// A name, email or uid a user wants that another user holds: the facts a catalog reads
/// before adding or changing a user, and the one message both catalogs give for them.
package enum UserClaimConflict: Sendable, Hashable {
    /// Another user has this name.
    case name(String)
    /// This address belongs to the named user.
    case email(String, owner: String)
    /// This uid belongs to the named user.
    case uid(UInt32, owner: String)

    /// The conflict to report of those a catalog found: the name before an email (the first
    /// taken, in the order the change gives them) before a uid (the same); nil when none is.
    package static func first(
        name: String, nameTaken: Bool, email: (email: String, owner: String)?, uid: (uid: UInt32, owner: String)?
    ) -> UserClaimConflict? {
        if nameTaken { return .name(name) }
        if let email { return .email(email.email, owner: email.owner) }
        if let uid { return .uid(uid.uid, owner: uid.owner) }
        return nil
    }

    /// The error a caller sees, saying who holds what.
    package var error: StoreError {
        switch self {
        case .name(let name): .conflict("a user named \"\(name)\" exists already")
        case .email(let email, let owner): .conflict("the email \(email) belongs to user \"\(owner)\" already")
        case .uid(let uid, let owner): .conflict("uid \(uid) belongs to user \"\(owner)\" already")
        }
    }
}
