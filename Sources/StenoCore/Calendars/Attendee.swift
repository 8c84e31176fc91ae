import Foundation

/// Someone invited to a meeting, as a calendar reports them.
public struct Attendee: Sendable, Hashable, Codable {
    /// Lowercased email address; the key attendees are matched to users by.
    public var email: String
    public var name: String?
    public var role: AttendeeRole
    public var response: AttendeeResponse

    public init(email: String, name: String? = nil, role: AttendeeRole = .required, response: AttendeeResponse = .none) {
        self.email = email.lowercased()
        self.name = name
        self.role = role
        self.response = response
    }
}

/// What part an attendee plays.
public enum AttendeeRole: String, Sendable, Hashable, Codable, CaseIterable {
    case organizer, required, optional, resource
}

/// How an attendee answered the invitation.
public enum AttendeeResponse: String, Sendable, Hashable, Codable, CaseIterable {
    case accepted, declined, tentative, none
}
