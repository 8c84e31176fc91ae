import Foundation
import StenoCore
import StenoJSON

/// The OAuth 2.0 device authorization grant (RFC 8628), as the Microsoft identity platform
/// implements it: the daemon asks for a device code, a person enters the user code at the
/// verification URL on any browser, and the daemon polls the token endpoint until they did.
public struct DeviceAuthorization: Sendable, Hashable, Codable {
    /// Polled with; never shown.
    public var deviceCode: String
    /// What the person types at ``verificationURI``.
    public var userCode: String
    public var verificationURI: String
    /// The server's sentence to show, when it sends one.
    public var message: String?
    public var expiresAt: Date
    /// Seconds between polls (RFC 8628 §3.2: 5 when absent).
    public var interval: Double

    public init(deviceCode: String, userCode: String, verificationURI: String, message: String?, expiresAt: Date, interval: Double) {
        self.deviceCode = deviceCode
        self.userCode = userCode
        self.verificationURI = verificationURI
        self.message = message
        self.expiresAt = expiresAt
        self.interval = interval
    }

    /// The grant type polled with (RFC 8628 §3.4).
    public static let grantType = "urn:ietf:params:oauth:grant-type:device_code"

    /// Starts a sign-in: POSTs `client_id` and `scope` to the device authorization endpoint.
    ///
    /// - Throws: ``DeviceSignInFailure/refused(_:)`` for an OAuth error (an unknown client id,
    ///   a client not allowed public flows), ``CalendarSyncError`` when the endpoint cannot be used.
    public static func start(
        endpoint url: URL, clientID: String, scope: String, transport: HTTPTransport, now: Date = Date()
    ) async throws -> DeviceAuthorization {
        let response = try await OAuthForm.post([("client_id", clientID), ("scope", scope)], to: url, transport: transport)
        guard response.isSuccess else {
            if let error = OAuthErrorResponse(response) { throw DeviceSignInFailure.refused(error.description) }
            throw HTTPStatusMeaning.error(for: response, doing: "POST \(url.absoluteString) (device authorization)")
        }
        guard let object = try? JSONValue.parse(response.body),
            let deviceCode = object["device_code"]?.stringValue, let userCode = object["user_code"]?.stringValue,
            let uri = (object["verification_uri"] ?? object["verification_url"])?.stringValue
        else {
            throw CalendarSyncError.malformedResponse("POST \(url.absoluteString) answered without device_code, user_code and verification_uri")
        }
        let expiresIn = object["expires_in"]?.doubleValue ?? 900
        let interval = object["interval"]?.doubleValue ?? 5
        return DeviceAuthorization(
            deviceCode: deviceCode, userCode: userCode, verificationURI: uri, message: object["message"]?.stringValue,
            expiresAt: now.addingTimeInterval(expiresIn), interval: max(1, interval))
    }

    /// Polls the token endpoint until the person signed in, declined, or the code expired.
    ///
    /// `authorization_pending` → wait `interval` and poll again; `slow_down` → the interval
    /// grows by 5 s (RFC 8628 §3.5); `expired_token`, `access_denied` (Microsoft:
    /// `authorization_declined`), `bad_verification_code` and other errors end the sign-in.
    ///
    /// - Parameter sleep: waits between polls (tests pass a short one).
    public func poll(
        _ endpoint: OAuthTokenEndpoint, now: @Sendable () -> Date = { Date() },
        sleep: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) async throws -> OAuthTokens {
        var wait = interval
        while true {
            try await sleep(.milliseconds(Int64(wait * 1000)))
            if now() >= expiresAt { throw DeviceSignInFailure.expired }
            let (outcome, _) = try await endpoint.post([("grant_type", Self.grantType), ("device_code", deviceCode)])
            switch outcome {
            case .tokens(let tokens):
                return tokens
            case .error(let error):
                switch error.code {
                case "authorization_pending": continue
                case "slow_down": wait += 5
                case "expired_token", "code_expired": throw DeviceSignInFailure.expired
                case "access_denied", "authorization_declined": throw DeviceSignInFailure.denied
                default: throw DeviceSignInFailure.refused(error.description)
                }
            }
        }
    }
}

/// Why a device sign-in ended without tokens.
public enum DeviceSignInFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The code expired before the person entered it (`expired_token`).
    case expired
    /// The person declined (`access_denied` / `authorization_declined`).
    case denied
    /// The identity platform refused the request (the error code and description).
    case refused(String)

    public var description: String {
        switch self {
        case .expired: return "the sign-in code expired before it was entered; start the sign-in again"
        case .denied: return "the sign-in was declined at the verification page"
        case .refused(let reason): return "the identity platform refused the sign-in (\(reason))"
        }
    }
}

extension DeviceAuthorization: SecretRedacting {
    /// The device code redeems the sign-in: it stays out of descriptions.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "deviceCode": RedactedSecret(deviceCode), "userCode": userCode, "verificationURI": verificationURI,
                "expiresAt": expiresAt, "interval": interval,
            ], displayStyle: .struct)
    }
}
