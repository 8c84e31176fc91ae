import Foundation
import StenoAPI
import StenoCalendar
import StenoCore
import Testing

@testable import StenoService

/// No value holding a key, password or token shows it in any of the ways Swift describes a
/// value: a log line interpolates one, an error wraps one, a debugger dumps one.
@Suite("Secrets are never described")
struct SecretRedactionTests {
    /// Every way a value turns into text.
    static func renderings(of value: Any) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        return [String(describing: value), String(reflecting: value), dumped, "\([value])"]
    }

    static func expectHidden(_ secrets: [String], in value: Any, sourceLocation: SourceLocation = #_sourceLocation) {
        for text in renderings(of: value) {
            for secret in secrets {
                #expect(!text.contains(secret), "\(secret) shows in \(text)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func theSecretBoxHidesItsKey() {
        let key: [UInt8] = (0..<32).map { UInt8(200 + $0 % 50) }
        let box = SecretBox(keyBytes: key)
        let decimal = key.map(String.init).joined(separator: ", ")
        Self.expectHidden([decimal, String(decimal.prefix(20)), "keyBytes"], in: box)
        // Inside a value holding it, as a service holds it.
        Self.expectHidden([decimal, String(decimal.prefix(20))], in: (box, "wrapper") as Any)
    }

    @Test func credentialsHideEverySecret() {
        let credentials = CalendarCredentials(
            password: "pw-hunter2", accessToken: "at-secret", refreshToken: "rt-secret", clientSecret: "cs-secret")
        Self.expectHidden(["pw-hunter2", "at-secret", "rt-secret", "cs-secret"], in: credentials)
        Self.expectHidden(["pw-hunter2"], in: Optional(credentials) as Any)
    }

    @Test func requestParamsHideTheirSecrets() {
        let add = AccountAddParams(
            provider: .caldav, url: "https://dav.example", user: "alice", password: "pw-hunter2", bearerToken: "at-secret",
            refreshToken: "rt-secret", clientSecret: "cs-secret")
        Self.expectHidden(["pw-hunter2", "at-secret", "rt-secret", "cs-secret"], in: add)
        let signIn = AccountSignInParams(account: 3, clientSecret: "cs-secret")
        Self.expectHidden(["cs-secret"], in: signIn)
    }

    @Test func oauthValuesHideCodesAndTokens() {
        let device = DeviceAuthorization(
            deviceCode: "dc-secret", userCode: "ABCD-EFGH", verificationURI: "https://login.example/device", message: nil,
            expiresAt: Date(), interval: 5)
        Self.expectHidden(["dc-secret"], in: device)
        let tokens = OAuthTokens(accessToken: "at-secret", refreshToken: "rt-secret", expiresIn: 3600)
        Self.expectHidden(["at-secret", "rt-secret"], in: tokens)
    }

    @Test func sealedSecretsAndRequestsHideTheirBytes() throws {
        let sealed = Data("sealed-bytes-secret".utf8)
        let draft = CalendarAccountDraft(provider: .ics, ownerID: 1, displayName: "x", sealedSecret: sealed)
        Self.expectHidden(["sealed-bytes-secret", "115, 101, 97, 108"], in: draft)
        let url = try #require(URL(string: "https://login.example/token"))
        let request = HTTPRequestValue(
            method: "POST", url: url, headers: [("Authorization", "Bearer at-secret")],
            body: Data("client_secret=cs-secret".utf8))
        Self.expectHidden(["at-secret", "cs-secret", "99, 108, 105"], in: request)
    }
}
