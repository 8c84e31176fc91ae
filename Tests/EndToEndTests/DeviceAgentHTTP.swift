import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
import StenoAPI
import StenoTesting

/// The device agent's endpoints as a phone reaches them: HTTP(S) requests to a real stenod's
/// listener, answers parsed as JSON.
final class DeviceAgentHTTP: Sendable {
    let baseURL: String
    let client: HTTPClient

    /// A client for the daemon's listener (read from `system.status`, waiting until it is
    /// bound); `trusting` a self-signed certificate's PEM file for HTTPS.
    init(daemon: TestDaemon, trusting certificate: String? = nil) throws {
        let client = try daemon.client()
        let status = try poll(timeout: 30, { try client.call(StenoMethods.systemStatus) }, until: { $0.deviceAgent != nil })
        guard let address = status.deviceAgent else { throw TestDaemonError("the device agent never started listening:\n\(daemon.log)") }
        baseURL = address
        var configuration = HTTPClient.Configuration()
        if let certificate {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(certificate))
            configuration.tlsConfiguration = tls
        }
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(60))
        self.client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    deinit { try? client.syncShutdown() }

    struct Answer {
        var status: Int
        var json: JSONValue
        var headers: [String: String]
    }

    func post(_ path: String, token: String? = nil, json: JSONValue) async throws -> Answer {
        try await send(path, method: .POST, token: token, body: json.serializedBytes)
    }

    func get(_ path: String, token: String?) async throws -> Answer {
        try await send(path, method: .GET, token: token, body: nil)
    }

    /// A GET whose body is bytes (audio), with extra request headers.
    func bytes(_ path: String, token: String?, headers: [(String, String)] = []) async throws -> (status: Int, headers: [String: String], body: [UInt8]) {
        var request = HTTPClientRequest(url: baseURL + path)
        if let token { request.headers.add(name: "Authorization", value: "Device \(token)") }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await client.execute(request, timeout: .seconds(120))
        let body = try await response.body.collect(upTo: 64 << 20)
        var fields: [String: String] = [:]
        for header in response.headers { fields[header.name.lowercased()] = header.value }
        return (Int(response.status.code), fields, Array(body.readableBytesView))
    }

    func send(_ path: String, method: HTTPMethod, token: String?, body: [UInt8]?, declaredLength: Bool = true) async throws -> Answer {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Device \(token)") }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = declaredLength ? .bytes(ByteBuffer(bytes: body)) : .stream(Self.chunks(body), length: .unknown)
        }
        let response = try await client.execute(request, timeout: .seconds(120))
        let bytes = try await response.body.collect(upTo: 64 << 20)
        let json = (try? JSONValue.parse(Array(bytes.readableBytesView))) ?? .null
        var headers: [String: String] = [:]
        for header in response.headers { headers[header.name.lowercased()] = header.value }
        return Answer(status: Int(response.status.code), json: json, headers: headers)
    }

    /// A body sent in 1 MiB chunks without a declared length.
    static func chunks(_ body: [UInt8]) -> AsyncStream<ByteBuffer> {
        AsyncStream { continuation in
            var offset = 0
            while offset < body.count {
                let end = min(offset + (1 << 20), body.count)
                continuation.yield(ByteBuffer(bytes: body[offset..<end]))
                offset = end
            }
            continuation.finish()
        }
    }

    /// Pairs a new device for the daemon's caller (root, mapped to a user) and returns its token.
    func pair(_ daemon: TestDaemon, label: String = "iphone", timeZone: String? = "Europe/Berlin") async throws -> (token: String, device: JSONValue) {
        let pairing = try daemon.client().call(StenoMethods.devicesPair, DeviceAddParams(label: label, timeZone: timeZone))
        let answer = try await post("/sync/devices/register", json: ["pairingCode": .string(pairing.code.lowercased())])
        guard answer.status == 201, let token = answer.json["deviceToken"]?.stringValue, let device = answer.json["device"] else {
            throw TestDaemonError("pairing failed: \(answer.status) \(answer.json)")
        }
        return (token, device)
    }

    /// Every row of a feed from `since`, following pages; returns the rows and the last serverTime.
    func feed(_ path: String, token: String, since: Int64 = 0, includeDeleted: Bool = true) async throws -> (events: [JSONValue], serverTime: Int64) {
        var since = since
        var events: [JSONValue] = []
        for _ in 0..<10_000 {
            let answer = try await get("\(path)?since=\(since)&includeDeleted=\(includeDeleted ? 1 : 0)&limit=1000", token: token)
            guard answer.status == 200, let page = answer.json["events"]?.arrayValue, let serverTime = answer.json["serverTime"]?.intValue else {
                throw TestDaemonError("feed failed: \(answer.status) \(answer.json)")
            }
            events += page
            since = serverTime
            if answer.json["hasMore"]?.boolValue != true { break }
        }
        return (events, since)
    }
}
