import StenoCore

/// Params of `users.add`.
public struct UserAddParams: Codable, Sendable, Hashable {
    /// Short unique handle, also the user's inbox folder name.
    public var name: String
    /// Human name.
    public var displayName: String?
    /// Email addresses (matched against calendar attendees).
    public var emails: [String]?
    /// Unix uids the user connects from.
    public var uids: [UInt32]?
    /// `member` unless given.
    public var role: Role?

    public init(name: String, displayName: String? = nil, emails: [String]? = nil, uids: [UInt32]? = nil, role: Role? = nil) {
        self.name = name
        self.displayName = displayName
        self.emails = emails
        self.uids = uids
        self.role = role
    }
}

/// Names one user: by name, by one of their emails, or by numeric id.
public struct UserReferenceParams: Codable, Sendable, Hashable {
    /// A user name, an email address, or an id.
    public var user: String

    public init(user: String) { self.user = user }
}

/// Params of `users.update`: fields left out stay as they are.
public struct UserUpdateParams: Codable, Sendable, Hashable {
    /// The user to change (name, email or id).
    public var user: String
    /// A new name.
    public var name: String?
    /// A new display name ("" clears it).
    public var displayName: String?
    /// Replaces all emails.
    public var emails: [String]?
    /// Emails to add.
    public var addEmails: [String]?
    /// Emails to remove.
    public var removeEmails: [String]?
    /// Replaces all uids.
    public var uids: [UInt32]?
    /// Uids to add.
    public var addUids: [UInt32]?
    /// Uids to remove.
    public var removeUids: [UInt32]?
    /// A new role.
    public var role: Role?

    public init(
        user: String, name: String? = nil, displayName: String? = nil, emails: [String]? = nil,
        addEmails: [String]? = nil, removeEmails: [String]? = nil, uids: [UInt32]? = nil,
        addUids: [UInt32]? = nil, removeUids: [UInt32]? = nil, role: Role? = nil
    ) {
        self.user = user
        self.name = name
        self.displayName = displayName
        self.emails = emails
        self.addEmails = addEmails
        self.removeEmails = removeEmails
        self.uids = uids
        self.addUids = addUids
        self.removeUids = removeUids
        self.role = role
    }
}
