#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import StenoAPI
import StenoCatalog
import StenoCore
import StenoSQLite
import StenoService
import StenoTesting

/// `steno-bench device`: a phone pushes 10,000 events in batches of 500 through a real
/// stenod's HTTP listener, beside the same events written straight into a catalog by the
/// store in the same run. Each run pairs a new device, so every run writes new events.
struct DeviceBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device",
        abstract: "Device agent upserts over HTTP against the store alone (target: HTTP within 1.5× of the store).")

    @Option(help: "Events a phone pushes.") var events = 10_000
    @Option(help: "Events per request.") var batch = 500
    @Option(help: "Runs of each path (the median is reported).") var runs = 5

    func run() async throws {
        let phone = PhoneEvents.sample(count: events)
        let batches = stride(from: 0, to: phone.count, by: batch).map { Array(phone[$0..<min($0 + batch, phone.count)]) }
        let bodies = batches.map { JSONValue.object(["events": .array($0)]).serializedBytes }

        let daemon = try TestDaemon(config: "[device_agent]\nlisten = \"127.0.0.1:0\"\n")
        defer { daemon.shutdown() }
        let rpc = try daemon.client()
        _ = try rpc.call(StenoMethods.usersAdd, UserAddParams(name: "bench", uids: [getuid()], role: .admin))
        var status = try rpc.call(StenoMethods.systemStatus)
        for _ in 0..<500 where status.deviceAgent == nil {
            usleep(20_000)
            status = try rpc.call(StenoMethods.systemStatus)
        }
        guard let baseURL = status.deviceAgent else { throw ValidationError("the daemon's device agent did not start:\n\(daemon.log)") }
        let http = HTTPClient(eventLoopGroupProvider: .singleton)

        let folder = NSTemporaryDirectory() + "steno-bench-device-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let catalog = try await SQLiteCatalog.open(path: folder + "/catalog.sqlite")
        let owner = try await catalog.addUser(UserDraft(name: "bench"))

        var httpSeconds: [Double] = []
        var repushSeconds: [Double] = []
        var storeSeconds: [Double] = []
        var storeParseSeconds: [Double] = []
        do {
            for run in 0..<runs {
                // Through HTTP, as the phone: pair, push every batch, then push them all again unchanged.
                let pairing = try rpc.call(StenoMethods.devicesPair, DeviceAddParams(label: "phone-\(run)", timeZone: "Europe/Berlin"))
                let registered = try await Self.send(http, baseURL + "/sync/devices/register", token: nil,
                                                     body: JSONValue.object(["pairingCode": .string(pairing.code)]).serializedBytes)
                guard let token = registered["deviceToken"]?.stringValue else { throw ValidationError("pairing failed: \(registered)") }
                let started = ContinuousClock.now
                for body in bodies { try await Self.expectAll("ok", try await Self.send(http, baseURL + "/sync/apple/events/upsert", token: token, body: body)) }
                httpSeconds.append((ContinuousClock.now - started).seconds)
                let again = ContinuousClock.now
                for body in bodies {
                    try await Self.expectAll("unchanged", try await Self.send(http, baseURL + "/sync/apple/events/upsert", token: token, body: body))
                }
                repushSeconds.append((ContinuousClock.now - again).seconds)

                // Straight into the store: the same events read into writes, applied in the same batches.
                let device = try await catalog.addDevice(
                    ownerID: owner.id, label: "phone-\(run)", timeZone: "Europe/Berlin", tokenHash: Data("bench-\(run)".utf8), now: Date())
                let reader = DeviceEventPayload(accountID: device.accountID, deviceTimeZone: TimeZone(identifier: "Europe/Berlin") ?? .gmt)
                let storeStarted = ContinuousClock.now
                var parse = Duration.zero
                for events in batches {
                    let parsing = ContinuousClock.now
                    let writes = try events.map { try reader.write(from: $0) }
                    parse += ContinuousClock.now - parsing
                    let report = try await catalog.applyDeviceEvents(writes, accountID: device.accountID, now: Date())
                    guard report.outcomes.allSatisfy({ $0 == .ok }) else { throw ValidationError("the store refused events: \(report.outcomes)") }
                }
                storeSeconds.append((ContinuousClock.now - storeStarted).seconds)
                storeParseSeconds.append(parse.seconds)
            }
        } catch {
            try? await http.shutdown()
            throw error
        }
        try await http.shutdown()

        let httpMedian = Self.median(httpSeconds)
        let storeMedian = Self.median(storeSeconds)
        let ratio = httpMedian / storeMedian
        print("device agent: \(events) events in batches of \(batch), median of \(runs) runs")
        print(String(format: "  HTTP upsert (daemon)      %8.3f s  %7.1f µs/event  %8.0f events/s", httpMedian, httpMedian / Double(events) * 1e6, Double(events) / httpMedian))
        print(String(format: "  HTTP re-push, unchanged   %8.3f s  %7.1f µs/event", Self.median(repushSeconds), Self.median(repushSeconds) / Double(events) * 1e6))
        print(String(format: "  store alone (same run)    %8.3f s  %7.1f µs/event  (reading the JSON into writes: %.3f s)", storeMedian, storeMedian / Double(events) * 1e6, Self.median(storeParseSeconds)))
        print(String(format: "  HTTP / store              %8.2f×  target ≤ 1.50×  %@", ratio, ratio <= 1.5 ? "MET" : "MISSED"))
    }

    static func send(_ http: HTTPClient, _ url: String, token: String?, body: [UInt8]) async throws -> JSONValue {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        if let token { request.headers.add(name: "Authorization", value: "Device \(token)") }
        request.body = .bytes(ByteBuffer(bytes: body))
        let response = try await http.execute(request, timeout: .seconds(300))
        let bytes = try await response.body.collect(upTo: 64 << 20)
        return try JSONValue.parse(Array(bytes.readableBytesView))
    }

    static func expectAll(_ status: String, _ answer: JSONValue) async throws {
        guard let results = answer["results"]?.arrayValue, results.allSatisfy({ $0["status"]?.stringValue == status }) else {
            throw ValidationError("expected every event \(status): \(answer["counts"] ?? answer)")
        }
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }
}
