import Foundation

/// The bearer token of a Graph account, renewed before it expires and once after a 401.
///
/// Delegated accounts (device sign-in) renew with their refresh token; organisation accounts
/// ask for a new token with the client credentials grant. Renewed credentials are saved
/// (sealed) through the mirror. An actor, so concurrent requests that meet an expired token
/// renew it once.
actor GraphAuthorizer {
    /// How tokens are obtained.
    enum Grant: Sendable {
        /// A person signed in; the refresh token renews the access token.
        case delegated
        /// Application permissions: client id + secret for the tenant.
        case clientCredentials(scope: String)
    }

    private var credentials: CalendarCredentials
    private let grant: Grant
    private let endpoint: OAuthTokenEndpoint
    private let save: @Sendable (CalendarCredentials) async throws -> Void
    /// The command that fixes refused credentials, quoted in the error.
    private let fixCommand: String
    /// Renew this long before the stated expiry.
    private let margin: TimeInterval
    private(set) var requests = 0
    private(set) var bytesReceived = 0
    /// The renewal in flight: callers arriving while it runs wait for it instead of sending
    /// their own (the actor is re-entered at every await).
    private var renewal: Task<String, any Error>?

    init(
        credentials: CalendarCredentials, grant: Grant, endpoint: OAuthTokenEndpoint, fixCommand: String, margin: TimeInterval = 120,
        save: @escaping @Sendable (CalendarCredentials) async throws -> Void
    ) {
        self.credentials = credentials
        self.grant = grant
        self.endpoint = endpoint
        self.fixCommand = fixCommand
        self.margin = margin
        self.save = save
    }

    /// The `Authorization` header for the next request.
    func header(now: Date = Date()) async throws -> String {
        if let token = credentials.accessToken, !token.isEmpty {
            guard let expiry = credentials.accessTokenExpiresAt, expiry.timeIntervalSince(now) < margin else {
                return HTTPAuthorization.bearer(token)
            }
        }
        return try await renew()
    }

    /// After a 401: whether to retry. True when the token was renewed by this call or by a
    /// concurrent one since `rejected` was sent.
    func recover(fromRejected rejected: String) async throws -> Bool {
        if let token = credentials.accessToken, rejected != HTTPAuthorization.bearer(token) { return true }
        _ = try await renew()
        return true
    }

    private func renew() async throws -> String {
        if let renewal { return try await renewal.value }
        let task = Task { try await self.requestTokens() }
        renewal = task
        defer { renewal = nil }
        return try await task.value
    }

    /// One token request; the new credentials are kept and saved.
    private func requestTokens() async throws -> String {
        var fields: [(String, String)]
        switch grant {
        case .delegated:
            guard let refreshToken = credentials.refreshToken else {
                throw CalendarSyncError.needsCredentials("needs sign-in: no Microsoft sign-in is stored; run `\(fixCommand)`")
            }
            fields = [("grant_type", "refresh_token"), ("refresh_token", refreshToken)]
        case .clientCredentials(let scope):
            guard let secret = credentials.clientSecret else {
                throw CalendarSyncError.needsCredentials("no client secret is stored; run `\(fixCommand)`")
            }
            fields = [("grant_type", "client_credentials"), ("client_secret", secret), ("scope", scope)]
        }
        if case .delegated = grant, let secret = credentials.clientSecret { fields.append(("client_secret", secret)) }
        let (outcome, bytes) = try await endpoint.post(fields)
        requests += 1
        bytesReceived += bytes
        switch outcome {
        case .tokens(let tokens):
            credentials = tokens.credentials(replacing: credentials)
            try await save(credentials)
            return HTTPAuthorization.bearer(tokens.accessToken)
        case .error(let error):
            switch grant {
            case .delegated:
                throw CalendarSyncError.needsCredentials(
                    "needs sign-in: Microsoft refused the stored sign-in (\(error)); sign in again with `\(fixCommand)`")
            case .clientCredentials:
                throw CalendarSyncError.needsCredentials(
                    "Microsoft refused the application's client credentials (\(error)); check the client id, tenant and secret, "
                        + "then run `\(fixCommand)`")
            }
        }
    }
}
