import Foundation
import StenoCalendar

/// What a daemon needs to finish a device sign-in another daemon started: the device
/// authorization (its device code redeems the sign-in), the account's settings, and the
/// account signed in again, if any. Kept in the catalog sealed with the secrets key only.
struct DeviceSignInRequest: Codable, Sendable, Hashable {
    var authorization: DeviceAuthorization
    /// The Graph settings of the account (client id, authority, write access…).
    var settings: [String: String]
    /// The account whose sign-in is renewed; nil for a new account.
    var accountID: Int64?

    /// Binds sealed requests to their purpose: neither a sealed request nor a sealed account
    /// secret can be passed off as the other.
    static let purpose = Data("steno device sign-in request v1".utf8)

    func sealed(with secrets: SecretBox) throws -> Data {
        try secrets.seal(self, purpose: Self.purpose)
    }

    /// Opens a request sealed by ``sealed(with:)``.
    ///
    /// - Throws: ``SecretBoxError/cannotOpen(_:)`` when another key sealed it (the daemons do
    ///   not share one) or it is damaged.
    static func opened(_ sealed: Data, with secrets: SecretBox) throws(SecretBoxError) -> DeviceSignInRequest {
        do {
            return try secrets.unseal(DeviceSignInRequest.self, from: sealed, purpose: purpose)
        } catch {
            throw .cannotOpen(
                "this daemon cannot open the sign-in another daemon started: every daemon sharing the catalog needs the same secrets key")
        }
    }
}
