import Foundation
import Logging
import NIOPosix
import ServiceLifecycle
import StenoAPI
import StenoCatalog
import StenoSQLite
import StenoTesting
import Testing

@testable import StenoService

/// What a test method saw: how many calls started, ran at once, were cancelled; and the
/// permits the test hands out to let calls finish.
actor CallProbe {
    private(set) var started = 0
    private(set) var running = 0
    private(set) var mostRunning = 0
    private(set) var cancelled = 0
    private var permits = 0

    func release(_ count: Int = 1) { permits += count }

    /// Runs as a method: counts itself, then waits for a permit (cancellable).
    func call() async throws {
        started += 1
        running += 1
        mostRunning = max(mostRunning, running)
        defer { running -= 1 }
        do {
            // Bounded: a call nobody releases ends after 30 s.
            for _ in 0..<6_000 where permits == 0 { try await Task.sleep(for: .milliseconds(5)) }
            permits -= 1
        } catch {
            cancelled += 1
            throw error
        }
    }
}

/// Waits (bounded, polling every 10 ms) until `condition` holds; returns whether it did.
func eventually(timeout: Duration = .seconds(10), _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return await condition()
}

/// The RPC server's protection of the daemon against one caller: cancellation when the
/// client leaves, the per-uid share of running requests, the per-uid connection cap, and
/// the idle timeout. An in-process server with a method that waits for the test's permit.
@Suite("RPC server limits", .serialized)
struct RPCServerLimitsTests {
    let folder = NSTemporaryDirectory() + "steno-limits-" + UUID().uuidString

    /// Serves `test.wait` (runs `probe.call()`) with `settings`, runs `body`, then shuts down.
    func withServer(
        _ settings: StenoConfiguration.RPCSettings, probe: CallProbe,
        _ body: (_ socket: String, _ server: RPCServer) async throws -> Void
    ) async throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try await SQLiteCatalog.open(path: folder + "/catalog.sqlite")
        var table = RPCMethodTable()
        table.registerRaw("test.wait", access: .anyone) { _, _ in
            try await probe.call()
            return .null
        }
        let logger = Logger(label: "test")
        let dispatcher = RPCDispatcher(methods: table, resolver: CallerResolver(store: store, daemonUID: getuid()), logger: logger)
        let loops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let socket = folder + "/s.sock"
        let ready = AsyncStream<Void>.makeStream()
        let server = RPCServer(
            endpoint: .path(socket, mode: 0o600, group: nil), dispatcher: dispatcher, group: loops, settings: settings,
            logger: logger, uncappedUIDs: [], onReady: { ready.continuation.yield() })
        let group = ServiceGroup(services: [server], logger: logger)
        let running = Task { try await group.run() }
        for await _ in ready.stream { break }
        do {
            try await body(socket, server)
        } catch {
            await group.triggerGracefulShutdown()
            _ = await running.result
            try await loops.shutdownGracefully()
            throw error
        }
        await probe.release(1000)
        await group.triggerGracefulShutdown()
        _ = await running.result
        try await loops.shutdownGracefully()
    }

    static let waitRequest = #"{"jsonrpc":"2.0","id":1,"method":"test.wait"}"#

    @Test func requestsOfAClientThatLeftAreCancelled() async throws {
        let probe = CallProbe()
        try await withServer(StenoConfiguration.RPCSettings(), probe: probe) { socket, server in
            var client: RawSocketClient? = try RawSocketClient(path: socket)
            try client?.sendLine(Self.waitRequest)
            try client?.sendLine(#"{"jsonrpc":"2.0","id":2,"method":"test.wait"}"#)
            #expect(await eventually { await probe.started == 2 })
            client = nil  // closes the socket
            #expect(await eventually { await probe.cancelled == 2 }, "the running requests go on after their client left")
            #expect(server.cancelledRequests == 2)
        }
    }

    @Test func oneUIDRunsAtMostItsShareAtOnce() async throws {
        var settings = StenoConfiguration.RPCSettings()
        settings.maxRunningPerUID = 2
        let probe = CallProbe()
        try await withServer(settings, probe: probe) { socket, _ in
            // Two connections of the same uid: the share spans them.
            let first = try RawSocketClient(path: socket), second = try RawSocketClient(path: socket)
            for id in 1...2 { try first.sendLine(#"{"jsonrpc":"2.0","id":\#(id),"method":"test.wait"}"#) }
            for id in 3...4 { try second.sendLine(#"{"jsonrpc":"2.0","id":\#(id),"method":"test.wait"}"#) }
            #expect(await eventually { await probe.started == 2 })
            // Each finished request lets one waiting request start, never more.
            for finished in 1...4 {
                await probe.release()
                #expect(await eventually {
                    let (started, running) = (await probe.started, await probe.running)
                    return started == min(4, finished + 2) && running <= 2
                })
            }
            #expect(await probe.mostRunning == 2)
            for client in [first, second] {
                for _ in 0..<2 { #expect(try client.readJSON()?["result"] == .null) }
            }
        }
    }

    @Test func connectionsBeyondTheUIDsCapAreRefusedWithAnError() async throws {
        var settings = StenoConfiguration.RPCSettings()
        settings.maxConnectionsPerUID = 2
        try await withServer(settings, probe: CallProbe()) { socket, _ in
            var kept = try (0..<2).map { _ in try RawSocketClient(path: socket) }
            for client in kept {
                try client.sendLine(#"{"jsonrpc":"2.0","id":1,"method":"system.nope"}"#)
                #expect(try client.readJSON()?["error"] != nil)
            }
            let refused = try RawSocketClient(path: socket)
            let reply = try #require(try refused.readJSON())
            #expect(reply["error"]?["code"] == .int(Int64(RPCError.failedPreconditionCode)))
            #expect(reply["error"]?["data"]?["limit"] == .int(2))
            #expect(try refused.waitUntilClosed(timeout: 10))
            // Closing one makes room again.
            kept.removeLast()
            #expect(await eventually {
                guard let again = try? RawSocketClient(path: socket), (try? again.sendLine(#"{"jsonrpc":"2.0","id":2,"method":"x"}"#)) != nil,
                    let answer = try? again.readJSON()
                else { return false }
                return answer["error"]?["code"] == .int(Int64(RPCError.methodNotFoundCode))
            })
            #expect(kept.count == 1)
        }
    }

    @Test func idleConnectionsAreClosedButNotWhileARequestRuns() async throws {
        var settings = StenoConfiguration.RPCSettings()
        settings.idleTimeoutSeconds = 1
        let probe = CallProbe()
        try await withServer(settings, probe: probe) { socket, _ in
            let idle = try RawSocketClient(path: socket)
            #expect(try idle.waitUntilClosed(timeout: 10), "an idle connection stays open")
            let busy = try RawSocketClient(path: socket)
            try busy.sendLine(Self.waitRequest)
            #expect(await eventually { await probe.started == 1 })
            // Well past the timeout while the request runs: still open, and it gets its answer.
            #expect(try !busy.waitUntilClosed(timeout: 2.5))
            await probe.release()
            // Generous bounds: they only guard against a hang (a parallel run can keep the
            // release from running for tens of seconds).
            #expect(try busy.readJSON(timeout: 120)?["id"] == .int(1))
            #expect(try busy.waitUntilClosed(timeout: 120))
        }
    }
}
