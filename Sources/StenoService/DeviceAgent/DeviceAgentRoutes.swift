import Foundation
import Hummingbird
import Logging
import NIOCore
import StenoAPI
import StenoCatalog

/// The device agent's routes and what every request goes through: the client's address, the
/// body limit, the time limit, JSON answers, and one debug line.
struct DeviceAgentRoutes: Sendable {
    let api: DeviceAgentAPI
    let settings: DeviceAgentSettings
    let logger: Logger

    func add(to router: Router<DeviceAgentRequestContext>) {
        router.post("/sync/devices/register") { request, context in
            try await respond(request, context) { address, body in try await api.register(body: body, address: address) }
        }
        router.post("/sync/apple/events/upsert") { request, context in
            try await respondAuthenticated(request, context) { device, body in try await api.upsert(device: device, body: body) }
        }
        router.get("/sync/apple/events/changes") { request, context in
            try await respondAuthenticated(request, context) { device, _ in
                try await api.changes(device: device, query: Self.query(request), ownEvents: true)
            }
        }
        router.get("/sync/events/changes") { request, context in
            try await respondAuthenticated(request, context) { device, _ in
                try await api.changes(device: device, query: Self.query(request), ownEvents: false)
            }
        }
        router.get("/sync/recordings/:id/audio") { request, context in
            try await respondAudio(request, context)
        }
    }

    private func respondAuthenticated(
        _ request: Request, _ context: DeviceAgentRequestContext,
        _ handle: @escaping @Sendable (_ device: DeviceRecord, _ body: [UInt8]) async throws -> DeviceAgentResponse
    ) async throws -> Response {
        let authorization = request.headers[.authorization]
        return try await respond(request, context) { address, body in
            switch try await api.authenticate(authorization: authorization, address: address) {
            case .success(let device): return try await handle(device, body)
            case .failure(let refusal): return refusal
            }
        }
    }

    /// Runs one request: reads its body within the limit, gives `handle` the time limit, and
    /// turns the outcome (or a failure) into a JSON response.
    private func respond(
        _ request: Request, _ context: DeviceAgentRequestContext,
        _ handle: @escaping @Sendable (_ address: String, _ body: [UInt8]) async throws -> DeviceAgentResponse
    ) async throws -> Response {
        let started = ContinuousClock.now
        let address = clientAddress(request, peer: context.peer)
        var outcome: DeviceAgentResponse
        do {
            // A body that trickles in counts against the time limit too.
            outcome = try await withTimeLimit {
                let body = try await readBody(request)
                return try await handle(address, body)
            }
        } catch let refusal as DeviceAgentResponse {
            outcome = refusal
        } catch is CancellationError {
            outcome = .error(503, "the request took longer than \(settings.requestTimeoutSeconds) s; try again")
        } catch {
            logger.error("device agent request failed", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
            outcome = .error(500, "the server could not complete the request; it is logged")
        }
        logger.debug(
            "device agent request",
            metadata: [
                "method": "\(request.method)", "path": "\(request.uri.path)", "status": "\(outcome.status)",
                "ms": "\((ContinuousClock.now - started).milliseconds)", "address": "\(address)",
            ])
        return Self.response(outcome)
    }

    /// The body, at most `max_body_bytes`: a larger one is refused before it is read when its
    /// length is declared, and as soon as it passes the limit when it is not.
    private func readBody(_ request: Request) async throws -> [UInt8] {
        guard request.method == .post else { return [] }
        let tooLarge = DeviceAgentResponse.error(413, "the body is larger than \(settings.maxBodyBytes) bytes; send fewer events per request")
        if let declared = request.headers[.contentLength].flatMap({ Int($0) }), declared > settings.maxBodyBytes { throw tooLarge }
        do {
            let buffer = try await request.body.collect(upTo: settings.maxBodyBytes)
            return Array(buffer.readableBytesView)
        } catch is NIOTooManyBytesError {
            throw tooLarge
        }
    }

    /// Runs `work`, cancelling it when it outlasts the request time limit.
    func withTimeLimit<Answer: Sendable>(_ work: @escaping @Sendable () async throws -> Answer) async throws -> Answer {
        let limit = Duration.seconds(settings.requestTimeoutSeconds)
        return try await withThrowingTaskGroup(of: Answer?.self) { group in
            group.addTask { try await work() }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let response = first else { throw CancellationError() }
            return response
        }
    }

    /// The client's address: the peer's (`uid N` on a Unix socket), or from a trusted proxy
    /// the last address it added to `X-Forwarded-For`. Anyone else's header is ignored.
    func clientAddress(_ request: Request, peer: DeviceListenerConnections.Peer?) -> String {
        guard let peer else { return "local" }
        if peer.isTrustedProxy, let forwarded = request.headers[.init("X-Forwarded-For")!],
            let last = forwarded.split(separator: ",").last?.trimmingCharacters(in: .whitespaces), !last.isEmpty
        {
            return String(last.prefix(64))
        }
        return peer.client
    }

    static func query(_ request: Request) -> [String: String] {
        var values: [String: String] = [:]
        for (key, value) in request.uri.queryParameters { values[String(key)] = String(value) }
        return values
    }

    static func response(_ outcome: DeviceAgentResponse) -> Response {
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"]
        if let seconds = outcome.retryAfter { headers[.retryAfter] = String(seconds) }
        if outcome.status == 401 { headers[.wwwAuthenticate] = "Device" }
        var bytes = outcome.body.serializedBytes
        bytes.append(UInt8(ascii: "\n"))
        return Response(
            status: HTTPResponse.Status(code: outcome.status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
