import Foundation
import StenoCore
import StenoJSON

/// An OAuth 2.0 token endpoint (RFC 6749 §3.2): every grant is a form POST answered by a
/// token response or an error response.
///
/// Used for the refresh-token and client-credentials grants (RFC 6749 §6, §4.4) and the
/// device-code grant (RFC 8628 §3.4). Requests and bytes are counted for sync reports.
public struct OAuthTokenEndpoint: Sendable {
    /// Where grants are posted (`…/oauth2/v2.0/token` for the Microsoft identity platform).
    public var tokenURL: URL
    /// The application (client) id.
    public var clientID: String
    let transport: HTTPTransport

    /// An endpoint reached through `transport`.
    public init(tokenURL: URL, clientID: String, transport: HTTPTransport) {
        self.tokenURL = tokenURL
        self.clientID = clientID
        self.transport = transport
    }

    /// Posts a grant (`client_id` is added) and reads the answer.
    ///
    /// - Returns: the tokens, or the server's OAuth error (4xx with an `error` code).
    /// - Throws: ``CalendarSyncError`` when the endpoint cannot be reached, is busy, or answers
    ///   something that is neither.
    public func post(_ fields: [(String, String)]) async throws -> (outcome: OAuthGrantOutcome, bytes: Int) {
        let response = try await OAuthForm.post(fields + [("client_id", clientID)], to: tokenURL, transport: transport)
        if response.isSuccess {
            guard let tokens = try? JSONValueDecoder().decode(OAuthTokens.self, from: JSONValue.parse(response.body)), !tokens.accessToken.isEmpty else {
                throw CalendarSyncError.malformedResponse(
                    "POST \(tokenURL.absoluteString) answered \(response.status) without an access_token")
            }
            return (.tokens(tokens), response.body.count)
        }
        if let error = OAuthErrorResponse(response) { return (.error(error), response.body.count) }
        throw HTTPStatusMeaning.error(for: response, doing: "POST \(tokenURL.absoluteString)")
    }
}

/// What a token endpoint answered to a grant.
public enum OAuthGrantOutcome: Sendable, Hashable {
    case tokens(OAuthTokens)
    case error(OAuthErrorResponse)
}

/// A successful token response (RFC 6749 §5.1).
public struct OAuthTokens: Sendable, Hashable, Decodable {
    public var accessToken: String
    public var refreshToken: String?
    /// Seconds the access token lives.
    public var expiresIn: Double?
    public var scope: String?

    public init(accessToken: String, refreshToken: String? = nil, expiresIn: Double? = nil, scope: String? = nil) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
        self.scope = scope
    }

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token", refreshToken = "refresh_token", expiresIn = "expires_in", scope
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        accessToken = try container.decode(String.self, forKey: .accessToken)
        refreshToken = try container.decodeIfPresent(String.self, forKey: .refreshToken)
        scope = try container.decodeIfPresent(String.self, forKey: .scope)
        // Some servers send the lifetime as a string.
        if let seconds = try? container.decodeIfPresent(Double.self, forKey: .expiresIn) {
            expiresIn = seconds
        } else {
            expiresIn = (try? container.decodeIfPresent(String.self, forKey: .expiresIn)).flatMap { $0.flatMap(Double.init) }
        }
    }

    /// These tokens as stored credentials: a refresh token not sent again is kept from `previous`.
    public func credentials(replacing previous: CalendarCredentials?, now: Date = Date()) -> CalendarCredentials {
        var updated = previous ?? CalendarCredentials()
        updated.accessToken = accessToken
        updated.accessTokenExpiresAt = expiresIn.map { now.addingTimeInterval($0) }
        if let refreshToken, !refreshToken.isEmpty { updated.refreshToken = refreshToken }
        return updated
    }
}

/// An OAuth error response (RFC 6749 §5.2): `error` and an optional description.
public struct OAuthErrorResponse: Error, Sendable, Hashable, CustomStringConvertible {
    /// `invalid_grant`, `authorization_pending`, `slow_down`…
    public var code: String
    public var errorDescription: String?
    public var status: Int

    public init(code: String, errorDescription: String? = nil, status: Int) {
        self.code = code
        self.errorDescription = errorDescription
        self.status = status
    }

    /// The error in a 4xx response, nil when the body is not an OAuth error.
    init?(_ response: HTTPResponseValue) {
        guard (400..<500).contains(response.status),
            let object = try? JSONValue.parse(response.body),
            let code = object["error"]?.stringValue, !code.isEmpty
        else { return nil }
        self.init(code: code, errorDescription: object["error_description"]?.stringValue, status: response.status)
    }

    /// The code and the first line of the description (Microsoft's run to many lines of trace ids).
    public var description: String {
        guard let text = errorDescription?.split(whereSeparator: \.isNewline).first else { return code }
        return "\(code): \(text)"
    }
}

extension OAuthTokens: SecretRedacting {
    /// Tokens stay out of descriptions.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "accessToken": RedactedSecret(accessToken), "refreshToken": RedactedSecret(refreshToken),
                "expiresIn": expiresIn as Any, "scope": scope as Any,
            ], displayStyle: .struct)
    }
}
