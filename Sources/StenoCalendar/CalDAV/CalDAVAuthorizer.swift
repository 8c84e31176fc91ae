import Foundation
import StenoJSON

/// The `Authorization` header of a CalDAV account: HTTP Basic with a (app-specific) password,
/// or an OAuth 2.0 bearer token refreshed when it expires or the server rejects it.
///
/// An actor, so concurrent requests that all hit an expired token refresh it once.
actor CalDAVAuthorizer {
    /// OAuth 2.0 refresh settings (RFC 6749 §6) from the account settings.
    struct RefreshSettings: Sendable {
        var tokenURL: URL
        var clientID: String?
    }

    private var credentials: CalendarCredentials?
    private let user: String?
    private let refresh: RefreshSettings?
    private let transport: HTTPTransport
    private let save: @Sendable (CalendarCredentials) async throws -> Void
    private let accountName: String
    /// Requests and bytes spent on token refreshes, reported with the sync's.
    private(set) var requests = 0
    private(set) var bytesReceived = 0

    init(
        credentials: CalendarCredentials?, user: String?, refresh: RefreshSettings?, transport: HTTPTransport, accountName: String,
        save: @escaping @Sendable (CalendarCredentials) async throws -> Void
    ) {
        self.credentials = credentials
        self.user = user
        self.refresh = refresh
        self.transport = transport
        self.accountName = accountName
        self.save = save
    }

    /// The header for the next request, refreshing a bearer token about to expire first.
    func header(now: Date = Date()) async throws -> String? {
        if let token = credentials?.accessToken {
            if let expiry = credentials?.accessTokenExpiresAt, expiry.timeIntervalSince(now) < 60, canRefresh {
                return try await refreshToken(replacing: token)
            }
            return HTTPAuthorization.bearer(token)
        }
        if let password = credentials?.password {
            return HTTPAuthorization.basic(user: user ?? "", password: password)
        }
        return nil
    }

    /// Whether a rejected request (401) may be retried: true when the token was refreshed
    /// (by this call or a concurrent one since `rejected` was sent).
    func recover(fromRejected rejected: String?) async throws -> Bool {
        guard let token = credentials?.accessToken else { return false }
        if let rejected, rejected != HTTPAuthorization.bearer(token) { return true }
        guard canRefresh else { return false }
        _ = try await refreshToken(replacing: token)
        return true
    }

    private var canRefresh: Bool { refresh != nil && credentials?.refreshToken != nil }

    /// Exchanges the refresh token for a new access token and saves the new credentials.
    private func refreshToken(replacing token: String) async throws -> String {
        guard let refresh, var updated = credentials, let refreshToken = updated.refreshToken else {
            return HTTPAuthorization.bearer(token)
        }
        var fields = [("grant_type", "refresh_token"), ("refresh_token", refreshToken)]
        if let clientID = refresh.clientID { fields.append(("client_id", clientID)) }
        if let secret = updated.clientSecret { fields.append(("client_secret", secret)) }
        let body = fields.map { "\(Self.formEncode($0.0))=\(Self.formEncode($0.1))" }.joined(separator: "&")
        let request = HTTPRequestValue(
            method: "POST", url: refresh.tokenURL,
            headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")], body: Data(body.utf8))
        let response = try await transport.send(request)
        requests += 1
        bytesReceived += response.body.count
        let json = try? JSONValue.parse(response.body)
        guard response.isSuccess, let accessToken = json?["access_token"]?.stringValue, !accessToken.isEmpty else {
            if response.status == 400 || response.status == 401 {
                let reason = json?["error"]?.stringValue ?? "HTTP \(response.status)"
                throw CalendarSyncError.needsCredentials(
                    "\(accountName): the OAuth refresh token was refused by \(refresh.tokenURL.absoluteString) (\(reason)); "
                        + "sign in again and update the account's token")
            }
            throw HTTPStatusMeaning.error(for: response, doing: "POST \(refresh.tokenURL.absoluteString) (OAuth token refresh)")
        }
        updated.accessToken = accessToken
        if let seconds = json?["expires_in"]?.doubleValue {
            updated.accessTokenExpiresAt = Date().addingTimeInterval(seconds)
        } else {
            updated.accessTokenExpiresAt = nil
        }
        if let newRefresh = json?["refresh_token"]?.stringValue, !newRefresh.isEmpty { updated.refreshToken = newRefresh }
        credentials = updated
        try await save(updated)
        return HTTPAuthorization.bearer(accessToken)
    }

    /// `application/x-www-form-urlencoded` escaping.
    static func formEncode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128)))
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
