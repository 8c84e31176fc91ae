import Foundation
import StenoJSON

/// A person's Microsoft sign-in for a delegated Graph account: the device code flow against
/// the account's authority, then `GET /me` to learn whose mailbox it is.
public enum GraphSignIn {
    /// Starts the device code flow (`offline_access` and `Calendars.Read`, or `ReadWrite`).
    ///
    /// - Throws: ``DeviceSignInFailure/refused(_:)`` when the identity platform refuses the
    ///   client (unknown id, public client flows not allowed), ``CalendarSyncError`` otherwise.
    public static func start(
        endpoints: GraphEndpoints, clientID: String, writeAccess: Bool, transport: HTTPTransport
    ) async throws -> DeviceAuthorization {
        try await DeviceAuthorization.start(
            endpoint: endpoints.deviceCodeURL, clientID: clientID, scope: GraphEndpoints.delegatedScope(write: writeAccess),
            transport: transport)
    }

    /// Polls until the person signed in; the tokens must include a refresh token (the
    /// account is synced long after the access token expires).
    public static func tokens(
        for authorization: DeviceAuthorization, endpoints: GraphEndpoints, clientID: String, transport: HTTPTransport,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) async throws -> OAuthTokens {
        let tokens = try await authorization.poll(
            OAuthTokenEndpoint(tokenURL: endpoints.tokenURL, clientID: clientID, transport: transport), sleep: sleep)
        guard tokens.refreshToken != nil else {
            throw DeviceSignInFailure.refused("no refresh token was issued; the application must be allowed offline_access")
        }
        return tokens
    }

    /// The signed-in user's principal name (or mail), from `GET /me`.
    ///
    /// The tokens are granted already when this runs, so a busy or unreachable Graph (429,
    /// 503, 504, a network failure) is waited out rather than losing the sign-in: the
    /// server's `Retry-After`, else 1, 2, 4… seconds, at most `retry.maximumRetries` times and
    /// never a wait longer than `retry.maximumDelay`.
    ///
    /// - Throws: ``CalendarSyncError/needsCredentials(_:)`` when Graph refuses the new token
    ///   (401, 403), ``CalendarSyncError/retryLater(after:reason:)`` when throttling outlasts
    ///   the policy, ``CalendarSyncError/badSource(_:)`` when Graph stays unreachable or
    ///   answers another error, ``CalendarSyncError/malformedResponse(_:)`` when it names no user.
    public static func signedInUser(
        accessToken: String, graphURL: URL, transport: HTTPTransport, retry: GraphProvider.RetryPolicy = GraphProvider.RetryPolicy(),
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) async throws -> String {
        let url = graphURL.appendingPathComponent("me")
        let request = HTTPRequestValue(
            method: "GET", url: url, headers: [("Authorization", HTTPAuthorization.bearer(accessToken)), ("Accept", "application/json")])
        var attempt = 0
        while true {
            let failure: CalendarSyncError
            var delay: Duration?
            do {
                let response = try await transport.send(request)
                switch response.status {
                case 200..<300:
                    let object = try? JSONValue.parse(response.body)
                    guard let name = object?["userPrincipalName"]?.stringValue ?? object?["mail"]?.stringValue, !name.isEmpty else {
                        throw CalendarSyncError.malformedResponse("GET \(url.absoluteString) named no userPrincipalName")
                    }
                    return name.lowercased()
                case 401, 403:
                    throw CalendarSyncError.needsCredentials(
                        "Microsoft Graph refused the token just granted (GET \(url.path)): \(GraphError(response)); sign in again")
                case 429, 503, 504:
                    delay = response.retryAfter()
                    failure = .retryLater(
                        after: delay ?? retry.defaultDelay(attempt: attempt),
                        reason: "Microsoft Graph stayed busy after the sign-in (GET \(url.path): \(GraphError(response)))")
                default:
                    throw CalendarSyncError.badSource("GET \(url.absoluteString) failed: \(GraphError(response))")
                }
            } catch let error as HTTPTransportError {
                failure = .badSource("Microsoft Graph could not be reached after the sign-in (GET \(url.absoluteString)): \(error)")
            }
            let wait = delay ?? retry.defaultDelay(attempt: attempt)
            attempt += 1
            guard attempt <= retry.maximumRetries, wait <= retry.maximumDelay else { throw failure }
            try await sleep(wait)
        }
    }
}
