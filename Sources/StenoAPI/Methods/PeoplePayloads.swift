import Foundation
import StenoCore

extension StenoMethods {
    /// What the catalog holds about an email address (the right of access; admins).
    public static let peopleShow = RPCMethodDescriptor<PersonParams, PersonRecord>("people.show")
    /// Erases an email address and its names from the catalog, and keeps it redacted in every
    /// later sync (admins).
    public static let peopleForget = RPCMethodDescriptor<PersonParams, ForgetReport>("people.forget")
}

/// Params of `people.show` and `people.forget`.
public struct PersonParams: Codable, Sendable, Hashable {
    /// The person's email address (any case).
    public var email: String

    public init(email: String) {
        self.email = email
    }
}
