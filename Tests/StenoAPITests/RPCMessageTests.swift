import Foundation
import StenoAPI
import StenoCore
import Testing

@Suite("JSON-RPC messages and direct JSON")
struct RPCMessageTests {
    @Test func directJSONEqualsTheCodableEncoding() throws {
        let status = SystemStatus(
            version: "0.1.0", startedAt: Date(timeIntervalSince1970: 1_763_631_000.123), uptimeSeconds: 12.5, schemaVersion: 1,
            databasePath: "/d/catalog.sqlite", socketPath: "/s.sock", inboxPath: "/i", counts: ["users": 2, "jobs": 0],
            queueDepth: 3, caller: CallerInfo(uid: 1000, user: "alice", role: .member))
        #expect(status.jsonValue == (try JSONValueEncoder().encode(status)))
        let anonymous = CallerInfo(uid: 0, user: nil, role: .admin)
        #expect(anonymous.jsonValue == (try JSONValueEncoder().encode(anonymous)))
        let version = VersionInfo(version: "0.1.0", apiVersion: 1)
        #expect(version.jsonValue == (try JSONValueEncoder().encode(version)))
    }

    @Test func requestsAreValidated() throws {
        #expect(try RPCRequest(json: ["jsonrpc": "2.0", "id": 1, "method": "x"]).isNotification == false)
        #expect(try RPCRequest(json: ["jsonrpc": "2.0", "method": "x"]).isNotification)
        #expect(throws: RPCError.self) { try RPCRequest(json: ["jsonrpc": "2.0", "id": [1], "method": "x"]) }
        #expect(throws: RPCError.self) { try RPCRequest(json: ["jsonrpc": "2.0", "id": 1]) }
        #expect(throws: RPCError.self) { try RPCRequest(json: ["id": 1, "method": "x"]) }
    }

    @Test func responsesRoundTrip() throws {
        let error = RPCResponse(id: "a", error: .notFound("no user \"x\"", data: ["reference": "x"]))
        #expect(try RPCResponse(json: error.json) == error)
        let result = RPCResponse(id: .null, result: ["ok": true])
        #expect(try RPCResponse(json: result.json) == result)
    }
}
