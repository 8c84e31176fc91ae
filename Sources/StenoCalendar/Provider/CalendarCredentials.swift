import Foundation
import StenoCore

/// An account's secrets: sealed at rest, opened only for a sync, never logged.
public struct CalendarCredentials: Sendable, Hashable, Codable {
    /// A password or app-specific password (HTTP Basic).
    public var password: String?
    /// An OAuth 2.0 access token (HTTP Bearer).
    public var accessToken: String?
    /// When `accessToken` stops working.
    public var accessTokenExpiresAt: Date?
    /// An OAuth 2.0 refresh token.
    public var refreshToken: String?
    /// An OAuth 2.0 client secret (confidential clients, client credentials).
    public var clientSecret: String?

    public init(
        password: String? = nil, accessToken: String? = nil, accessTokenExpiresAt: Date? = nil, refreshToken: String? = nil,
        clientSecret: String? = nil
    ) {
        self.password = password
        self.accessToken = accessToken
        self.accessTokenExpiresAt = accessTokenExpiresAt
        self.refreshToken = refreshToken
        self.clientSecret = clientSecret
    }
}

extension CalendarCredentials: SecretRedacting {
    /// Never the secrets themselves: credentials may end up in a log line by accident.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "password": RedactedSecret(password), "accessToken": RedactedSecret(accessToken),
                "accessTokenExpiresAt": accessTokenExpiresAt as Any, "refreshToken": RedactedSecret(refreshToken),
                "clientSecret": RedactedSecret(clientSecret),
            ], displayStyle: .struct)
    }
}
