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
    public static func signedInUser(accessToken: String, graphURL: URL, transport: HTTPTransport) async throws -> String {
        let url = graphURL.appendingPathComponent("me")
        let response: HTTPResponseValue
        do {
            response = try await transport.send(
                HTTPRequestValue(method: "GET", url: url, headers: [("Authorization", HTTPAuthorization.bearer(accessToken)), ("Accept", "application/json")]))
        } catch let error as HTTPTransportError {
            throw CalendarSyncError.badSource("GET \(url.absoluteString): \(error)")
        }
        guard response.isSuccess else { throw CalendarSyncError.badSource("GET \(url.absoluteString) failed: \(GraphError(response))") }
        let object = try? JSONValue.parse(response.body)
        guard let name = object?["userPrincipalName"]?.stringValue ?? object?["mail"]?.stringValue, !name.isEmpty else {
            throw CalendarSyncError.malformedResponse("GET \(url.absoluteString) named no userPrincipalName")
        }
        return name.lowercased()
    }
}
