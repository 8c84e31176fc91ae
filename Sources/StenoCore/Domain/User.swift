import Foundation

/// A team member known to Steno.
///
/// Users own recordings (by inbox folder, sidecar email or Unix owner), own calendar
/// accounts, and are who a socket caller is: the caller's Unix uid maps to one user.
public struct User: Sendable, Hashable, Codable, Identifiable {
    /// Stable numeric identifier assigned by the catalog.
    public var id: Int64
    /// Short handle, unique, also the name of the user's inbox folder (`inbox/<name>/`).
    public var name: String
    /// Human name shown in tables; optional.
    public var displayName: String?
    /// Email addresses, lowercased; used to match calendar attendees and sidecar owners.
    public var emails: [String]
    /// Unix uids this user connects from.
    public var uids: [UInt32]
    /// What the user may do and see.
    public var role: Role
    /// When the user was added.
    public var createdAt: Date

    public init(
        id: Int64, name: String, displayName: String? = nil, emails: [String] = [], uids: [UInt32] = [],
        role: Role = .member, createdAt: Date = Date()
    ) {
        self.id = id
        self.name = name
        self.displayName = displayName
        self.emails = emails
        self.uids = uids
        self.role = role
        self.createdAt = createdAt
    }
}

/// What a user may do: admins see and change everything, members see what they own or attend.
public enum Role: String, Sendable, Hashable, Codable, CaseIterable {
    case admin
    case member
}
