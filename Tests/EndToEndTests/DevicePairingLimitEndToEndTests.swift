import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// A member's phone pairing past `[members] max_devices`, against a real stenod's listener: a
/// right code is answered 403 naming the limit, not 401, and is not spent.
@Suite("Device pairing within a member's limit", .blocksThreads, .serialized)
struct DevicePairingLimitEndToEndTests {
    @Test func aCodeBeyondTheDeviceLimitIsRefusedAndStaysGood() async throws {
        let daemon = try TestDaemon(
            config: DeviceAgentEndToEndTests.config + "\n[members]\nmax_devices = 1\n[device_agent]\nlisten = \"127.0.0.1:0\"\n")
        defer { daemon.shutdown() }
        // The socket's caller (root) acts as alice, a member: her devices count against the limit.
        let client = try daemon.client()
        _ = try client.call(StenoMethods.usersAdd, UserAddParams(name: "alice", emails: ["alice@example.com"], uids: [getuid()]))
        let http = try DeviceAgentHTTP(daemon: daemon)
        let (_, first) = try await http.pair(daemon, label: "iphone")

        let pairing = try client.call(StenoMethods.devicesPair, DeviceAddParams(label: "ipad", timeZone: nil))
        let refused = try await http.post("/sync/devices/register", json: ["pairingCode": .string(pairing.code)])
        #expect(refused.status == 403, "\(refused.json)")
        let reason = refused.json["error"]?.stringValue ?? ""
        #expect(reason.contains("alice has 1 device,") && reason.contains("[members] max_devices = 1"), "\(reason)")

        _ = try client.call(StenoMethods.devicesRevoke, DeviceIDParams(id: try #require(first["id"]?.intValue)))
        let paired = try await http.post("/sync/devices/register", json: ["pairingCode": .string(pairing.code)])
        #expect(paired.status == 201, "the code was spent by the refusal: \(paired.json)")
        #expect(paired.json["device"]?["label"]?.stringValue == "ipad")
    }
}
