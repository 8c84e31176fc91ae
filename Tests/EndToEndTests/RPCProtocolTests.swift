import Foundation
import StenoAPI
import StenoTesting
import StenoTestTraits
import Testing

/// JSON-RPC 2.0 behaviour of a real stenod, checked over raw socket frames.
@Suite("JSON-RPC over the Unix socket", .blocksThreads, .serialized)
struct RPCProtocolTests {
    let daemon: TestDaemon

    init() throws {
        daemon = try TestDaemon(config: "[rpc]\nmax_frame_bytes = 4096\n")
    }

    @Test func versionAndStatus() throws {
        let socket = try RawSocketClient(path: daemon.socketPath)
        let version = try #require(try socket.call(#"{"jsonrpc":"2.0","id":1,"method":"system.version"}"#))
        #expect(version["id"] == .int(1))
        #expect(version["result"]?["apiVersion"] == .int(1))
        let status = try #require(try socket.call(#"{"jsonrpc":"2.0","id":2,"method":"system.status"}"#))
        // The schema version is the number of the newest migration in Schema/migrations.
        let migrations = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Schema/migrations").path
        let newest = try FileManager.default.contentsOfDirectory(atPath: migrations).filter { $0.hasSuffix(".sql") }.sorted().last
        #expect(status["result"]?["schemaVersion"] == .int(Int64(newest?.prefix(4) ?? "") ?? -1))
        #expect(status["result"]?["caller"]?["role"] == .string("admin"))
        #expect(status["result"]?["counts"]?["users"] == .int(0))
    }

    @Test func idIsEchoedAsGiven() throws {
        let socket = try RawSocketClient(path: daemon.socketPath)
        for id in [#"7"#, #""abc""#, #"null"#, #"-3"#, #"1.5"#, #""""#] {
            let reply = try #require(try socket.call(#"{"jsonrpc":"2.0","id":\#(id),"method":"system.version"}"#))
            #expect(reply["id"] == (try JSONValue.parse(id)), "id \(id)")
            #expect(reply["result"] != nil)
        }
    }

    @Test func batchAnswersRequestsButNotNotifications() throws {
        let socket = try RawSocketClient(path: daemon.socketPath)
        let batch = """
            [{"jsonrpc":"2.0","id":"a","method":"system.version"},\
            {"jsonrpc":"2.0","method":"system.version"},\
            {"jsonrpc":"2.0","id":"b","method":"no.such"},\
            {"foo":"bar"}]
            """
        let reply = try #require(try socket.call(batch))
        let responses = try #require(reply.arrayValue)
        #expect(responses.count == 3)
        let byID = Dictionary(responses.map { ($0["id"] ?? .null, $0) }, uniquingKeysWith: { first, _ in first })
        #expect(byID[.string("a")]?["result"] != nil)
        #expect(byID[.string("b")]?["error"]?["code"] == .int(-32601))
        #expect(byID[.null]?["error"]?["code"] == .int(-32600))
    }

    @Test func emptyBatchIsInvalidRequest() throws {
        let socket = try RawSocketClient(path: daemon.socketPath)
        let reply = try #require(try socket.call("[]"))
        #expect(reply["error"]?["code"] == .int(-32600))
        #expect(reply["id"] == .null)
    }

    @Test func notificationGetsNoReply() throws {
        let socket = try RawSocketClient(path: daemon.socketPath)
        try socket.sendLine(#"{"jsonrpc":"2.0","method":"system.version"}"#)
        try socket.sendLine(#"[{"jsonrpc":"2.0","method":"system.version"},{"jsonrpc":"2.0","method":"system.status"}]"#)
        try socket.sendLine(#"{"jsonrpc":"2.0","id":99,"method":"system.version"}"#)
        let reply = try #require(try socket.readJSON())
        #expect(reply["id"] == .int(99), "the notifications must not be answered")
        #expect(try socket.readLine(timeout: 0.3) == nil)
    }

    @Test func unknownMethodAndBadParams() throws {
        let socket = try RawSocketClient(path: daemon.socketPath)
        let unknown = try #require(try socket.call(#"{"jsonrpc":"2.0","id":1,"method":"recordings.frobnicate"}"#))
        #expect(unknown["error"]?["code"] == .int(-32601))
        #expect(unknown["error"]?["data"]?["method"] == .string("recordings.frobnicate"))
        let badType = try #require(try socket.call(#"{"jsonrpc":"2.0","id":2,"method":"users.add","params":{"name":5}}"#))
        #expect(badType["error"]?["code"] == .int(-32602))
        #expect(badType["error"]?["message"]?.stringValue?.contains("name") == true)
        let missing = try #require(try socket.call(#"{"jsonrpc":"2.0","id":3,"method":"users.remove","params":{}}"#))
        #expect(missing["error"]?["code"] == .int(-32602))
        let positional = try #require(try socket.call(#"{"jsonrpc":"2.0","id":4,"method":"users.remove","params":["x"]}"#))
        #expect(positional["error"]?["code"] == .int(-32602))
        let badName = try #require(try socket.call(#"{"jsonrpc":"2.0","id":5,"method":"users.add","params":{"name":"../etc"}}"#))
        #expect(badName["error"]?["code"] == .int(-32602))
    }

    @Test func invalidRequests() throws {
        let socket = try RawSocketClient(path: daemon.socketPath)
        for (line, code) in [
            (#"{"jsonrpc":"1.0","id":1,"method":"system.version"}"#, -32600),
            (#"{"jsonrpc":"2.0","id":1,"method":7}"#, -32600),
            (#"{"jsonrpc":"2.0","id":{"a":1},"method":"system.version"}"#, -32600),
            (#""just a string""#, -32600),
            (#"{"jsonrpc":"2.0","id":1,"method":"system.version","params":3}"#, -32600),
        ] {
            let reply = try #require(try socket.call(line), "no reply to \(line)")
            #expect(reply["error"]?["code"] == .int(Int64(code)), "for \(line)")
        }
    }

    @Test func nonJSONAndInvalidUTF8AreParseErrors() throws {
        let socket = try RawSocketClient(path: daemon.socketPath)
        let garbage = try #require(try socket.call("this is not json"))
        #expect(garbage["error"]?["code"] == .int(-32700))
        #expect(garbage["id"] == .null)
        let truncated = try #require(try socket.call(#"{"jsonrpc":"2.0","id":1,"method":"#))
        #expect(truncated["error"]?["code"] == .int(-32700))
        try socket.send(Array(#"{"jsonrpc":"2.0","id":1,"method":"system.version","x":""#.utf8) + [0xFF, 0xFE] + Array("\"}\n".utf8))
        let invalidUTF8 = try #require(try socket.readJSON())
        #expect(invalidUTF8["error"]?["code"] == .int(-32700))
        // The connection still works afterwards.
        let after = try #require(try socket.call(#"{"jsonrpc":"2.0","id":2,"method":"system.version"}"#))
        #expect(after["result"] != nil)
    }

    @Test func oversizedFrameIsAnsweredAndTheConnectionSurvives() throws {
        let socket = try RawSocketClient(path: daemon.socketPath)
        let padding = String(repeating: "x", count: 10_000)
        // Sent in pieces, as a slow client would.
        let frame = Array(#"{"jsonrpc":"2.0","id":1,"method":"system.version","params":{"pad":"\#(padding)"}}"#.utf8) + [10]
        for chunk in stride(from: 0, to: frame.count, by: 1500) {
            try socket.send(Array(frame[chunk..<min(frame.count, chunk + 1500)]))
        }
        let reply = try #require(try socket.readJSON())
        #expect(reply["error"]?["code"] == .int(-32600))
        #expect(reply["error"]?["data"]?["limit"] == .int(4096))
        let after = try #require(try socket.call(#"{"jsonrpc":"2.0","id":2,"method":"system.version"}"#))
        #expect(after["id"] == .int(2))
        #expect(try socket.readLine(timeout: 0.3) == nil, "one error for one oversized frame")
    }

    @Test func pipelinedRequestsAreAllAnswered() throws {
        let socket = try RawSocketClient(path: daemon.socketPath)
        var frames: [UInt8] = []
        for id in 0..<200 {
            frames += Array(#"{"jsonrpc":"2.0","id":\#(id),"method":"\#(id % 2 == 0 ? "system.status" : "system.version")"}"#.utf8) + [10]
        }
        try socket.send(frames)
        var seen = Set<Int64>()
        for _ in 0..<200 {
            let reply = try #require(try socket.readJSON())
            #expect(reply["result"] != nil)
            if let id = reply["id"]?.intValue { seen.insert(id) }
        }
        #expect(seen == Set(0..<200))
    }

    @Test func lastRequestWithoutNewlineIsAnsweredOnHalfClose() throws {
        let socket = try RawSocketClient(path: daemon.socketPath)
        try socket.send(Array(#"{"jsonrpc":"2.0","id":5,"method":"system.version"}"#.utf8))
        socket.shutdownWrite()
        let reply = try #require(try socket.readJSON())
        #expect(reply["id"] == .int(5))
    }

    @Test func twoHundredConcurrentConnections() throws {
        let sockets = try (0..<200).map { _ in try RawSocketClient(path: daemon.socketPath) }
        // An idle connection that never sends must not block anyone.
        let idle = try RawSocketClient(path: daemon.socketPath)
        for (index, socket) in sockets.enumerated() {
            try socket.sendLine(#"{"jsonrpc":"2.0","id":\#(index),"method":"system.status"}"#)
        }
        for (index, socket) in sockets.enumerated() {
            let reply = try #require(try socket.readJSON())
            #expect(reply["id"] == .int(Int64(index)))
            #expect(reply["result"]?["version"] != nil)
        }
        _ = idle
    }

    @Test func discoverDescribesEveryServedMethod() throws {
        let socket = try RawSocketClient(path: daemon.socketPath)
        let reply = try #require(try socket.call(#"{"jsonrpc":"2.0","id":1,"method":"rpc.discover"}"#))
        let methods = try #require(reply["result"]?["methods"]?.arrayValue)
        let names = Set(methods.compactMap { $0["name"]?.stringValue })
        #expect(names == Set(StenoMethods.allNames))
    }
}
