import Foundation
import StenoAgent
import StenoTesting
import Testing

/// The client over real HTTP (a scripted server on 127.0.0.1): pairing, errors a user can act
/// on, upserts split into requests of 500, feeds followed while `hasMore`.
@Suite("StenoAgentClient over HTTP", .serialized)
struct AgentClientTests {
    typealias Rule = ScriptedHTTPServer.Rule

    func results(_ count: Int, from start: Int) -> String {
        let items = (start..<(start + count)).map { #"{"externalId": "E\#($0)", "status": "ok"}"# }
        return #"{"results": [\#(items.joined(separator: ","))], "serverTime": \#(start + count)}"#
    }

    @Test func pairingSendsTheCodeWithoutAToken() async throws {
        let answer = #"{"deviceToken": "stdv_abc", "device": {"id": 3, "label": "my-iphone", "timeZone": "Europe/Berlin", "account": 12}}"#
        let server = try ScriptedHTTPServer(rules: [Rule(method: "POST", path: "/sync/devices/register", bodyContains: "K7QF-2MXD", status: 201, body: answer)])
        defer { server.shutdown() }
        let registration = try await StenoAgentClient.register(
            baseURL: server.baseURL, pairingCode: "K7QF-2MXD", label: "my-iphone", timeZone: "Europe/Berlin")
        #expect(registration.deviceToken == "stdv_abc")
        #expect(registration.device == RegisteredDevice(id: 3, label: "my-iphone", timeZone: "Europe/Berlin", account: 12))
        let request = try #require(server.requests.first)
        #expect(request.authorization == nil)
        #expect(request.body.contains(#""label":"my-iphone""#) && request.body.contains(#""timeZone":"Europe\/Berlin""#))
    }

    @Test func refusalsBecomeErrorsSayingWhatToDo() async throws {
        let server = try ScriptedHTTPServer(rules: [
            Rule(method: "POST", path: "/sync/devices/register", times: 1, status: 401, body: #"{"error": "unknown or expired pairing code"}"#),
            Rule(method: "POST", path: "/sync/devices/register", times: 1, status: 429, headers: ["Retry-After": "7"], body: #"{"error": "slow down"}"#),
            Rule(method: "POST", path: "/sync/apple/events/upsert", times: 1, status: 400, body: #"{"error": "malformed JSON at byte 12"}"#),
            Rule(method: "POST", path: "/sync/apple/events/upsert", times: 1, status: 500, body: "Internal trouble"),
            Rule(method: "POST", path: "/sync/apple/events/upsert", times: 1, status: 200, body: "<html>not Steno</html>"),
        ])
        defer { server.shutdown() }
        await #expect(throws: AgentClientError.unauthorized(message: "unknown or expired pairing code")) {
            try await StenoAgentClient.register(baseURL: server.baseURL, pairingCode: "WRONG")
        }
        await #expect(throws: AgentClientError.rateLimited(retryAfter: 7)) {
            try await StenoAgentClient.register(baseURL: server.baseURL, pairingCode: "WRONG")
        }
        let client = StenoAgentClient(baseURL: server.baseURL, token: "stdv_secret")
        let event = [DeviceEvent(externalId: "A1", externalCalendarId: "CAL-1")]
        await #expect(throws: AgentClientError.badRequest(message: "malformed JSON at byte 12")) { try await client.upsert(event) }
        await #expect(throws: AgentClientError.server(status: 500, message: "Internal trouble")) { try await client.upsert(event) }
        do {
            _ = try await client.upsert(event)
            Issue.record("an HTML answer was accepted")
        } catch {
            guard case .invalidResponse = error else { throw error }
            #expect(!error.description.contains("stdv_secret"))
        }
        #expect(server.requests.dropFirst(2).allSatisfy { $0.authorization == "Device stdv_secret" })

        let nobody = StenoAgentClient(baseURL: try #require(URL(string: "http://127.0.0.1:1/")), token: "stdv_secret", timeout: 5)
        do {
            _ = try await nobody.changes(since: 0)
            Issue.record("a closed port answered")
        } catch {
            guard case .transport = error else { throw error }
            #expect(error.isTransient)
        }
    }

    @Test func twelveHundredEventsGoInThreeRequestsAndTheResultsStayInOrder() async throws {
        let server = try ScriptedHTTPServer(rules: [
            Rule(method: "POST", path: "/sync/apple/events/upsert", bodyContains: #""externalId":"E0""#, times: 1, status: 200, body: results(500, from: 0)),
            Rule(method: "POST", path: "/sync/apple/events/upsert", bodyContains: #""externalId":"E500""#, times: 1, status: 200, body: results(500, from: 500)),
            Rule(method: "POST", path: "/sync/apple/events/upsert", bodyContains: #""externalId":"E1000""#, times: 1, status: 200, body: results(200, from: 1000)),
        ])
        defer { server.shutdown() }
        let client = StenoAgentClient(baseURL: server.baseURL, token: "stdv_t")
        let events = (0..<1200).map { DeviceEvent(externalId: "E\($0)", externalCalendarId: "CAL-1", title: "Event \($0)") }
        let answer = try await client.upsert(events)
        #expect(answer.results.map(\.externalId) == events.map(\.externalId))
        #expect(answer.serverTime == 1200)
        let bodies = server.requests.map(\.body)
        #expect(bodies.count == 3)
        #expect(bodies.map { $0.components(separatedBy: #""externalId""#).count - 1 } == [500, 500, 200])
        #expect(try await client.upsert([]).results.isEmpty)
        #expect(server.requests.count == 3, "nothing to send, nothing sent")
    }

    @Test func aFeedIsFollowedWhileItHasMore() async throws {
        let row = { (id: Int) in #"{"id": "e:\#(id)", "provider": "apple", "device": 3, "externalId": "A\#(id)", "deletedAt": 0}"# }
        let server = try ScriptedHTTPServer(rules: [
            Rule(method: "GET", path: "/sync/events/changes?since=5&includeDeleted=1&limit=2", status: 200,
                body: #"{"events": [\#(row(1)), \#(row(2))], "serverTime": 20, "hasMore": true}"#),
            Rule(method: "GET", path: "/sync/events/changes?since=20&includeDeleted=1&limit=2", status: 200,
                body: #"{"events": [\#(row(3))], "serverTime": 31, "hasMore": false}"#),
            Rule(method: "GET", path: "/sync/apple/events/changes?since=0", status: 200,
                body: #"{"events": [], "serverTime": 0, "hasMore": true}"#),
        ])
        defer { server.shutdown() }
        let client = StenoAgentClient(baseURL: server.baseURL, token: "stdv_t")
        let feed = try await client.changes(since: 5, includeDeleted: true, pageSize: 2)
        #expect(feed.events.map(\.id) == ["e:1", "e:2", "e:3"])
        #expect(feed.serverTime == 31)
        // A server that says hasMore without moving its serverTime would loop forever: refused.
        let stuck = StenoAgentClient(baseURL: try #require(URL(string: server.baseURL.absoluteString)), token: "stdv_t")
        do {
            _ = try await stuck.deviceChanges(since: 0, includeDeleted: false)
            Issue.record("a feed that does not move was followed")
        } catch {
            guard case .invalidResponse = error else { throw error }
        }
    }
}
