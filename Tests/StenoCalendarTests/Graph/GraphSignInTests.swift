import Foundation
import StenoCore
import StenoTesting
import Synchronization
import Testing

@testable import StenoCalendar

/// The device authorization grant and the token grants against the double's identity endpoints.
@Suite("Microsoft sign-in against the double", .serialized)
struct GraphSignInTests {
    /// Records the waits instead of sleeping.
    final class Sleeps: Sendable {
        private let recorded = Mutex<[Duration]>([])
        var all: [Duration] { recorded.withLock { $0 } }
        func sleep(_ duration: Duration) async throws { recorded.withLock { $0.append(duration) } }
    }

    func endpoints(_ double: GraphDouble) throws -> GraphEndpoints {
        try GraphEndpoints(settings: ["authority": double.baseURL.absoluteString, "graph_url": double.graphURL.absoluteString])
    }

    @Test("pending polls, slow_down (+5 s), then tokens with a refresh token; GET /me names the user")
    func approved() async throws {
        let double = try GraphDouble()
        let transport = HTTPTransport()
        defer {
            double.shutdown()
            Task { try? await transport.shutdown() }
        }
        double.scriptDeviceFlow(.init(pendingPolls: 2, slowDownAtPoll: 1, outcome: .approve(user: "alice@contoso.com")), interval: 1)
        let endpoints = try endpoints(double)
        let authorization = try await GraphSignIn.start(endpoints: endpoints, clientID: "steno-test-client", writeAccess: false, transport: transport)
        #expect(authorization.verificationURI.hasSuffix("/devicelogin") && authorization.userCode.count == 8 && authorization.interval == 1)
        let start = try #require(double.requests.first)
        #expect(start.uri == "/common/oauth2/v2.0/devicecode" && start.body.contains("scope=offline_access%20Calendars.Read"))
        let sleeps = Sleeps()
        let tokens = try await GraphSignIn.tokens(
            for: authorization, endpoints: endpoints, clientID: "steno-test-client", transport: transport, sleep: { try await sleeps.sleep($0) })
        #expect(sleeps.all == [.seconds(1), .seconds(6), .seconds(6)])
        #expect(tokens.refreshToken != nil && tokens.expiresIn == 3600)
        let user = try await GraphSignIn.signedInUser(accessToken: tokens.accessToken, graphURL: endpoints.graphURL, transport: transport)
        #expect(user == "alice@contoso.com")
    }

    @Test("declined → denied; expired → expired; an unknown client is refused at the start")
    func failures() async throws {
        let double = try GraphDouble()
        let transport = HTTPTransport()
        defer {
            double.shutdown()
            Task { try? await transport.shutdown() }
        }
        let endpoints = try endpoints(double)
        let noSleep: @Sendable (Duration) async throws -> Void = { _ in }
        for (outcome, failure) in [(GraphDouble.DeviceFlowScript.Outcome.decline, DeviceSignInFailure.denied), (.expire, .expired)] {
            double.scriptDeviceFlow(.init(pendingPolls: 1, outcome: outcome))
            let authorization = try await GraphSignIn.start(endpoints: endpoints, clientID: "steno-test-client", writeAccess: true, transport: transport)
            await #expect(throws: failure) {
                try await GraphSignIn.tokens(for: authorization, endpoints: endpoints, clientID: "steno-test-client", transport: transport, sleep: noSleep)
            }
        }
        await #expect(throws: DeviceSignInFailure.self) {
            try await GraphSignIn.start(endpoints: endpoints, clientID: "unknown", writeAccess: false, transport: transport)
        }
    }

    @Test("a code past its lifetime is expired without asking the server again")
    func lifetime() async throws {
        let authorization = DeviceAuthorization(
            deviceCode: "d", userCode: "U", verificationURI: "http://127.0.0.1/x", message: nil, expiresAt: Date().addingTimeInterval(-1), interval: 1)
        let transport = HTTPTransport()
        defer { Task { try? await transport.shutdown() } }
        let endpoint = OAuthTokenEndpoint(tokenURL: try #require(URL(string: "http://127.0.0.1:9/token")), clientID: "c", transport: transport)
        await #expect(throws: DeviceSignInFailure.expired) {
            try await authorization.poll(endpoint, sleep: { _ in })
        }
    }

    /// Signs Alice in through a new double's device flow and runs `body` with her access token.
    func withSignedInToken(
        _ body: (GraphDouble, HTTPTransport, String, GraphEndpoints) async throws -> Void
    ) async throws {
        let double = try GraphDouble()
        let transport = HTTPTransport()
        defer {
            double.shutdown()
            Task { try? await transport.shutdown() }
        }
        let (token, endpoints) = try await signedInToken(double, transport: transport)
        try await body(double, transport, token, endpoints)
    }

    func signedInToken(_ double: GraphDouble, transport: HTTPTransport) async throws -> (token: String, endpoints: GraphEndpoints) {
        double.scriptDeviceFlow(.init(pendingPolls: 0, outcome: .approve(user: "alice@contoso.com")), interval: 1)
        let endpoints = try endpoints(double)
        let authorization = try await GraphSignIn.start(endpoints: endpoints, clientID: "steno-test-client", writeAccess: false, transport: transport)
        let tokens = try await GraphSignIn.tokens(
            for: authorization, endpoints: endpoints, clientID: "steno-test-client", transport: transport, sleep: { _ in })
        return (tokens.accessToken, endpoints)
    }

    @Test("GET /me answering 503 twice (Retry-After 3, then none) is waited out: the user is named after two waits")
    func profileRetried() async throws {
        try await withSignedInToken { double, transport, token, endpoints in
            double.inject([.init(status: 503, retryAfter: "3", code: "ServiceUnavailable"), .init(status: 429)])
            let sleeps = Sleeps()
            let user = try await GraphSignIn.signedInUser(
                accessToken: token, graphURL: endpoints.graphURL, transport: transport, sleep: { try await sleeps.sleep($0) })
            #expect(user == "alice@contoso.com")
            #expect(sleeps.all == [.seconds(3), .seconds(2)])
            #expect(double.requests.filter { $0.uri == "/v1.0/me" }.count == 3)
        }
    }

    @Test("GET /me: 401 fails at once naming the refusal; endless 503 and an unreachable Graph give up after the policy's retries")
    func profileFailures() async throws {
        try await withSignedInToken { double, transport, token, endpoints in
            let retry = GraphProvider.RetryPolicy(maximumRetries: 3, maximumDelay: .seconds(30))
            let refused = Sleeps()
            double.inject(Array(repeating: .init(status: 401, code: "InvalidAuthenticationToken"), count: 10))
            do {
                _ = try await GraphSignIn.signedInUser(
                    accessToken: token, graphURL: endpoints.graphURL, transport: transport, retry: retry, sleep: { try await refused.sleep($0) })
                Issue.record("a refused token named a user")
            } catch let CalendarSyncError.needsCredentials(reason) {
                #expect(reason.contains("HTTP 401") && reason.contains("InvalidAuthenticationToken"), "\(reason)")
            }
            #expect(refused.all.isEmpty)

            double.clearFaults()
            double.inject(Array(repeating: .init(status: 503, code: "ServiceUnavailable"), count: 20))
            let busy = Sleeps()
            await #expect(throws: CalendarSyncError.self) {
                try await GraphSignIn.signedInUser(
                    accessToken: token, graphURL: endpoints.graphURL, transport: transport, retry: retry, sleep: { try await busy.sleep($0) })
            }
            #expect(busy.all == [.seconds(1), .seconds(2), .seconds(4)])

            // Connection refused: the client gives up on the connection within its request timeout.
            let unreachable = Sleeps()
            let quick = HTTPTransport(requestTimeout: .seconds(2))
            defer { Task { try? await quick.shutdown() } }
            let closed = try #require(URL(string: "http://127.0.0.1:9/v1.0"))
            do {
                _ = try await GraphSignIn.signedInUser(
                    accessToken: token, graphURL: closed, transport: quick, retry: retry, sleep: { try await unreachable.sleep($0) })
                Issue.record("an unreachable Graph named a user")
            } catch let CalendarSyncError.badSource(reason) {
                #expect(reason.contains("could not be reached"), "\(reason)")
            }
            #expect(unreachable.all.count == 3)
        }
    }

    @Test("endpoints: tenant paths, national-cloud scope, bad URLs refused")
    func endpointSettings() throws {
        let china = try GraphEndpoints(settings: [
            "authority": "https://login.chinacloudapi.cn/", "graph_url": "https://microsoftgraph.chinacloudapi.cn/v1.0", "tenant": "contoso.cn",
        ])
        #expect(china.tokenURL.absoluteString == "https://login.chinacloudapi.cn/contoso.cn/oauth2/v2.0/token")
        #expect(china.deviceCodeURL.absoluteString == "https://login.chinacloudapi.cn/contoso.cn/oauth2/v2.0/devicecode")
        #expect(china.applicationScope == "https://microsoftgraph.chinacloudapi.cn/.default")
        let defaults = try GraphEndpoints(settings: [:])
        #expect(defaults.tokenURL.absoluteString == "https://login.microsoftonline.com/common/oauth2/v2.0/token")
        #expect(throws: CalendarSyncError.self) { try GraphEndpoints(settings: ["graph_url": "ftp://x"]) }
        #expect(throws: CalendarSyncError.self) { try GraphAccountSetup(settings: ["mode": "application", "client_id": "c"]) }
    }
}
