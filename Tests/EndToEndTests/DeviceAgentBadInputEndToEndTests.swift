import AsyncHTTPClient
import Foundation
import NIOCore
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// The device agent facing wrong tokens, broken bodies and oversized requests: clear answers,
/// the good events stored, the daemon still serving.
@Suite("Device agent: bad input and security", .blocksThreads, .serialized)
struct DeviceAgentBadInputEndToEndTests {
    func good(_ id: String) -> JSONValue {
        ["externalId": .string(id), "externalCalendarId": "CAL", "title": "Fine", "date": "2026-11-25", "startTime": "10:00", "endTime": "11:00"]
    }

    @Test func missingUnknownAndRevokedTokensGetTheSameAnswer() async throws {
        let daemon = try DeviceAgentEndToEndTests.daemon()
        let http = try DeviceAgentHTTP(daemon: daemon)
        let (token, device) = try await http.pair(daemon)
        #expect(try await http.get("/sync/events/changes?since=0", token: token).status == 200)
        let missing = try await http.get("/sync/events/changes?since=0", token: nil)
        let unknown = try await http.get("/sync/events/changes?since=0", token: "stdv_" + String(repeating: "A", count: 43))
        _ = try daemon.client().call(StenoMethods.devicesRevoke, DeviceIDParams(id: device["id"]?.intValue ?? 0))
        let revoked = try await http.get("/sync/events/changes?since=0", token: token)
        for answer in [missing, unknown, revoked] {
            #expect(answer.status == 401 && answer.json == missing.json && answer.headers["www-authenticate"] == "Device")
        }
        // A used pairing code does not work twice.
        let pairing = try daemon.client().call(StenoMethods.devicesPair, DeviceAddParams())
        #expect(try await http.post("/sync/devices/register", json: ["pairingCode": .string(pairing.code)]).status == 201)
        #expect(try await http.post("/sync/devices/register", json: ["pairingCode": .string(pairing.code)]).status == 401)
    }

    @Test func repeatedFailuresFromOneAddressAreSlowedDown() async throws {
        let daemon = try DeviceAgentEndToEndTests.daemon()
        let http = try DeviceAgentHTTP(daemon: daemon)
        var statuses: [Int] = []
        for attempt in 0..<8 {
            let answer = try await http.post("/sync/devices/register", json: ["pairingCode": .string("ZZZZ-ZZZ\(attempt)")])
            statuses.append(answer.status)
            if answer.status == 429 {
                #expect(Int(answer.headers["retry-after"] ?? "") ?? 0 >= 1)
                break
            }
        }
        #expect(statuses.prefix(5).allSatisfy { $0 == 401 } && statuses.last == 429, "\(statuses)")
        // The RPC side is unaffected.
        #expect(try daemon.client().call(StenoMethods.systemVersion).apiVersion >= 1)
    }

    @Test func brokenAndOversizedBodiesAreRefusedAndGoodEventsKept() async throws {
        let daemon = try DeviceAgentEndToEndTests.daemon()
        let http = try DeviceAgentHTTP(daemon: daemon)
        let (token, _) = try await http.pair(daemon)
        let path = "/sync/apple/events/upsert"

        let malformed = try await http.send(path, method: .POST, token: token, body: Array(#"{"events": [ {"externalId": "A"},, ]}"#.utf8))
        #expect(malformed.status == 400 && malformed.json["error"]?.stringValue?.contains("byte 33") == true, "\(malformed.json)")

        let tenThousand = try await http.post(path, token: token, json: ["events": .array((0..<10_000).map { good("T\($0)") })])
        #expect(tenThousand.status == 400 && tenThousand.json["error"]?.stringValue?.contains("at most 1000") == true)

        // Bad date, time and zone among good events: each bad one names its field.
        var badDate = good("BAD-DATE").objectValue ?? [:]
        badDate["date"] = "2026-02-30"
        var badTime = good("BAD-TIME").objectValue ?? [:]
        badTime["endTime"] = "9am"
        var badZone = good("BAD-ZONE").objectValue ?? [:]
        badZone["timeZone"] = "Mars/Olympus"
        let mixed = try await http.post(
            path, token: token, json: ["events": [good("G1"), .object(badDate), good("G2"), .object(badTime), .object(badZone), good("G3")]])
        #expect(mixed.status == 200)
        let results = mixed.json["results"]?.arrayValue ?? []
        #expect(results.compactMap { $0["status"]?.stringValue } == ["ok", "error", "ok", "error", "error", "ok"])
        #expect(results.compactMap { $0["field"]?.stringValue } == ["date", "endTime", "timeZone"])

        // 100 MB: refused by its declared length, and again when it comes without one.
        let huge = [UInt8](repeating: UInt8(ascii: " "), count: 100 << 20)
        #expect(try await http.send(path, method: .POST, token: token, body: huge).status == 413)
        #expect(try await http.send(path, method: .POST, token: token, body: huge, declaredLength: false).status == 413)

        // Still serving, with the good events stored.
        let live = try await http.feed("/sync/apple/events/changes", token: token, includeDeleted: false)
        #expect(live.events.compactMap { $0["externalId"]?.stringValue }.sorted() == ["G1", "G2", "G3"])
        #expect(try await http.post(path, token: token, json: good("G4")).json["results"]?[0]?["status"]?.stringValue == "ok")
    }

    /// A body that never ends is cut off at the request time limit, and the daemon serves on.
    @Test func aRequestOutlastingTheTimeLimitIsAnswered503() async throws {
        let daemon = try DeviceAgentEndToEndTests.daemon("request_timeout_seconds = 1\n")
        let http = try DeviceAgentHTTP(daemon: daemon)
        let (token, _) = try await http.pair(daemon)
        var request = HTTPClientRequest(url: http.baseURL + "/sync/apple/events/upsert")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Device \(token)")
        let (endless, continuation) = AsyncStream.makeStream(of: ByteBuffer.self)
        continuation.yield(ByteBuffer(string: #"{"events": ["#))
        request.body = .stream(endless, length: .unknown)
        let response = try await http.client.execute(request, timeout: .seconds(30))
        continuation.finish()
        #expect(response.status.code == 503)
        #expect(try await http.post("/sync/apple/events/upsert", token: token, json: good("AFTER")).status == 200)
    }

    @Test func plainHTTPOnAnAddressOthersCanReachIsRefused() throws {
        let root = NSTemporaryDirectory() + "steno-device-plain-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        try "[device_agent]\nlisten = \"0.0.0.0:0\"\n".write(toFile: root + "/stenod.toml", atomically: true, encoding: .utf8)
        let result = try runCommand(
            try TestDaemon.executable(named: "stenod"),
            ["--config", root + "/stenod.toml", "--socket", root + "/s.sock", "--data-dir", root + "/data", "--inbox", root + "/inbox"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("allow_plain_http"), "\(result.stderr)")
    }

    @Test(.enabled(if: TestRequirement.runs(when: TestRequirement.hasExecutable("/usr/bin/openssl")), "needs openssl to make a certificate"))
    func tlsWithASelfSignedCertificate() async throws {
        let folder = NSTemporaryDirectory() + "steno-device-tls-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let made = try runCommand(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", folder + "/key.pem", "-out", folder + "/cert.pem",
            ])
        #expect(made.status == 0, "\(made.stderr)")
        let daemon = try DeviceAgentEndToEndTests.daemon(
            "tls_certificate = \"\(folder)/cert.pem\"\ntls_key = \"\(folder)/key.pem\"\n")
        let http = try DeviceAgentHTTP(daemon: daemon, trusting: folder + "/cert.pem")
        #expect(http.baseURL.hasPrefix("https://127.0.0.1:"))
        let (token, _) = try await http.pair(daemon)
        let pushed = try await http.post("/sync/apple/events/upsert", token: token, json: good("TLS-1"))
        #expect(pushed.json["results"]?[0]?["status"]?.stringValue == "ok")
        // Without trusting the certificate, the connection is refused.
        let untrusting = try DeviceAgentHTTP(daemon: daemon)
        await #expect(throws: (any Error).self) { _ = try await untrusting.get("/sync/events/changes", token: token) }
    }
}
