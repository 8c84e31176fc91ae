import Foundation

/// Someone invited to a meeting, as a calendar reports them.
public struct Attendee: Sendable, Hashable, Codable {
    /// Lowercased email address; the key attendees are matched to users by.
    public var email: String
    public var name: String?
    public var role: AttendeeRole
    public var response: AttendeeResponse

    public init(email: String, name: String? = nil, role: AttendeeRole = .required, response: AttendeeResponse = .none) {
        // Most addresses arrive lowercase already: keep the string rather than build a copy
        // (a full sync makes several attendees per event).
        let needsLowercasing = email.utf8.contains { (0x41...0x5A).contains($0) || $0 >= 0x80 }
        self.email = needsLowercasing ? email.lowercased() : email
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
