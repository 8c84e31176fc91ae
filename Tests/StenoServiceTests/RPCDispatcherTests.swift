import Foundation
import Logging
import NIOCore
import StenoAPI
import StenoCatalog
import StenoCore
import StenoSQLite
import Testing

@testable import StenoService

/// The dispatcher with the daemon's real method table on a temporary catalog.
@Suite("RPC dispatcher")
struct RPCDispatcherTests {
    let folder = NSTemporaryDirectory() + "steno-dispatch-" + UUID().uuidString
    let root = PeerCredentials(pid: 1, uid: 0, gid: 0)
    let stranger = PeerCredentials(pid: 2, uid: 4242, gid: 4242)

    func makeDispatcher() async throws -> RPCDispatcher {
        var configuration = StenoConfiguration.defaults(environment: [:], uid: 1)
        configuration.databasePath = folder + "/catalog.sqlite"
        let store = try await SQLiteCatalog.open(path: configuration.databasePath)
        return try StenoDaemon(configuration: configuration, environment: [:]).makeDispatcher(store: store)
    }

    func call(_ dispatcher: RPCDispatcher, _ text: String, as caller: PeerCredentials? = nil) async throws -> JSONValue? {
        guard let reply = await dispatcher.reply(to: ByteBuffer(string: text), from: caller ?? root) else { return nil }
        return try JSONValue.parse(Array(reply.readableBytesView.dropLast()))
    }

    @Test func methodTableMatchesTheOpenRPCDocumentAndTheAPI() async throws {
        let dispatcher = try await makeDispatcher()
        let document = try SystemMethods.loadOpenRPCDocument()
        let documented = Set(document["methods"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? [])
        #expect(Set(dispatcher.methodNames) == documented)
        #expect(Set(StenoMethods.allNames) == documented)
        for method in document["methods"]?.arrayValue ?? [] {
            #expect(method["result"] != nil, "\(method["name"] ?? .null) has no result")
            #expect(method["summary"]?.stringValue?.isEmpty == false)
        }
    }

    @Test func everyDocumentedErrorRefIsDefined() throws {
        let document = try SystemMethods.loadOpenRPCDocument()
        let defined = Set(document["components"]?["errors"]?.objectValue?.keys.map { $0 } ?? [])
        for method in document["methods"]?.arrayValue ?? [] {
            for error in method["errors"]?.arrayValue ?? [] {
                let name = error["$ref"]?.stringValue?.split(separator: "/").last.map(String.init) ?? ""
                #expect(defined.contains(name), "undefined error \(name)")
            }
        }
    }

    @Test func unknownCallerGetsUnknownUserExceptForPublicMethods() async throws {
        let dispatcher = try await makeDispatcher()
        let version = try await call(dispatcher, #"{"jsonrpc":"2.0","id":1,"method":"system.version"}"#, as: stranger)
        #expect(version?["result"] != nil)
        let status = try await call(dispatcher, #"{"jsonrpc":"2.0","id":1,"method":"system.status"}"#, as: stranger)
        #expect(status?["error"]?["code"] == .int(-32001))
        #expect(status?["error"]?["message"]?.stringValue?.contains("steno users add NAME --uid 4242") == true)
    }

    @Test func memberIsNotPermittedAdminMethods() async throws {
        let dispatcher = try await makeDispatcher()
        _ = try await call(dispatcher, #"{"jsonrpc":"2.0","id":1,"method":"users.add","params":{"name":"m","uids":[4242]}}"#)
        let list = try await call(dispatcher, #"{"jsonrpc":"2.0","id":2,"method":"users.list"}"#, as: stranger)
        #expect(list?["error"]?["code"] == .int(-32002))
        let status = try await call(dispatcher, #"{"jsonrpc":"2.0","id":3,"method":"system.status"}"#, as: stranger)
        #expect(status?["result"]?["caller"]?["user"] == .string("m"))
    }

    @Test func storeErrorsKeepTheirMeaning() async throws {
        let dispatcher = try await makeDispatcher()
        let missing = try await call(dispatcher, #"{"jsonrpc":"2.0","id":1,"method":"users.remove","params":{"user":"ghost"}}"#)
        #expect(missing?["error"]?["code"] == .int(-32004))
        #expect(missing?["error"]?["data"]?["reference"] == .string("ghost"))
        _ = try await call(dispatcher, #"{"jsonrpc":"2.0","id":2,"method":"users.add","params":{"name":"a"}}"#)
        let duplicate = try await call(dispatcher, #"{"jsonrpc":"2.0","id":3,"method":"users.add","params":{"name":"a"}}"#)
        #expect(duplicate?["error"]?["code"] == .int(-32009))
        let limit = try await call(dispatcher, #"{"jsonrpc":"2.0","id":4,"method":"users.list","params":{"limit":0}}"#)
        #expect(limit?["error"]?["code"] == .int(-32602))
    }

    @Test func batchOfOnlyNotificationsSendsNothing() async throws {
        let dispatcher = try await makeDispatcher()
        let reply = await dispatcher.reply(
            to: ByteBuffer(string: #"[{"jsonrpc":"2.0","method":"system.version"},{"jsonrpc":"2.0","method":"nope"}]"#), from: root)
        #expect(reply == nil)
    }
}

/// Search text beyond the bounds is refused before any work, with the bounds in the error.
@Suite("Bounded search")
struct BoundedSearchTests {
    @Test func longOrWordySearchIsInvalidParams() async throws {
        let dispatcher = try await RPCDispatcherTests().makeDispatcher()
        // 2,000 distinct words: today FTS5 works through them for seconds, then answers.
        let wordy = (1...2_000).map { "w\($0)" }.joined(separator: " ")
        let thirtyThree = (1...33).map { "w\($0)" }.joined(separator: " ")
        for (id, text) in [wordy, thirtyThree, String(repeating: "x", count: 513)].enumerated() {
            let request = JSONValue.object([
                "jsonrpc": "2.0", "id": .int(Int64(id)), "method": "search.query", "params": ["text": .string(text)],
            ])
            var bytes: [UInt8] = []
            request.write(to: &bytes)
            let reply = await dispatcher.reply(to: ByteBuffer(bytes: bytes), from: PeerCredentials(pid: 1, uid: 0, gid: 0))
            let parsed = try JSONValue.parse(Array(try #require(reply).readableBytesView.dropLast()))
            #expect(parsed["error"]?["code"] == .int(-32602), "\(text.prefix(40))")
            #expect(parsed["error"]?["data"]?["maximumWords"] == .int(32))
            #expect(parsed["error"]?["data"]?["maximumBytes"] == .int(512))
        }
        let allowed = (1...32).map { "w\($0)" }.joined(separator: " ")
        let accepted = try await RPCDispatcherTests().call(
            dispatcher, #"{"jsonrpc":"2.0","id":9,"method":"search.query","params":{"text":"\#(allowed)"}}"#)
        #expect(accepted?["result"]?["items"] == .array([]))
    }
}
