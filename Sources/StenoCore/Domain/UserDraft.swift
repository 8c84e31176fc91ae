/// The fields of a user to be added; the catalog assigns the id.
public struct UserDraft: Sendable, Hashable {
    public var name: String
    public var displayName: String?
    public var emails: [String]
    public var uids: [UInt32]
    public var role: Role

    public init(name: String, displayName: String? = nil, emails: [String] = [], uids: [UInt32] = [], role: Role = .member) {
        self.name = name
        self.displayName = displayName
        self.emails = emails
        self.uids = uids
        self.role = role
    }

    /// Checks every field and normalises the emails (lowercased, deduplicated, order kept).
    public func validated() throws(UserValidation.Problem) -> UserDraft {
        try UserValidation.checkName(name)
        var copy = self
        var seen = Set<String>()
        var emails: [String] = []
        for email in self.emails {
            let normalized = try UserValidation.normalizedEmail(email)
            if seen.insert(normalized).inserted { emails.append(normalized) }
        }
        copy.emails = emails
        var seenUIDs = Set<UInt32>()
        copy.uids = uids.filter { seenUIDs.insert($0).inserted }
        return copy
    }
}

/// A change to a user: nil fields stay as they are.
public struct UserChange: Sendable, Hashable {
    public var name: String?
    /// `.some(nil)` clears the display name.
    public var displayName: String??
    public var emails: [String]?
    public var uids: [UInt32]?
    public var role: Role?

    public init(name: String? = nil, displayName: String?? = nil, emails: [String]? = nil, uids: [UInt32]? = nil, role: Role? = nil) {
        self.name = name
        self.displayName = displayName
        self.emails = emails
        self.uids = uids
        self.role = role
    }

    /// The user after this change, validated and normalised.
    public func applied(to user: User) throws(UserValidation.Problem) -> User {
        var draft = UserDraft(
            name: name ?? user.name,
            displayName: displayName ?? user.displayName,
            emails: emails ?? user.emails,
            uids: uids ?? user.uids,
            role: role ?? user.role
        )
        draft = try draft.validated()
        var changed = user
        changed.name = draft.name
        changed.displayName = draft.displayName
        changed.emails = draft.emails
        changed.uids = draft.uids
        changed.role = draft.role
        return changed
    }
}
