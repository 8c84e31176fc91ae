import Foundation
import StenoAPI
import StenoTesting
import StenoTestTraits
import Testing

/// `steno devices`: a member adds, pairs, lists and revokes their phones; the token is shown
/// once and never again; an admin sees every device with its owner.
@Suite(
    "steno devices", .blocksThreads, .serialized,
    .enabled(if: TestRequirement.runs(when: canSwitchUsers), "needs root and setpriv to act as a member"))
struct DevicesCLITests {
    /// `steno ARGUMENTS` as `uid` (nil: root, an admin).
    func command(_ daemon: TestDaemon, as uid: UInt32?, _ arguments: [String]) throws -> CommandResult {
        guard let uid else { return try steno(daemon, arguments) }
        return try runAs(uid: uid, try TestDaemon.executable(named: "steno"), ["--socket", daemon.socketPath] + arguments)
    }

    /// A daemon whose socket members may open, with alice (`otherUID`) and bob (`secondUID`).
    func daemonWithMembers(extraConfig: String = "") throws -> TestDaemon {
        try #require(canSwitchUsers, "needs root and /usr/bin/setpriv to act as a member")
        let daemon = try sharedSocketDaemon(extraConfig: extraConfig)
        for (name, uid) in [("alice", otherUID), ("bob", secondUID)] {
            let added = try steno(daemon, ["users", "add", name, "--email", "\(name)@example.com", "--uid", String(uid)])
            try #require(added.status == 0, "\(added.stderr)")
        }
        return daemon
    }

    /// The device tokens in `text` (`stdv_` and 43 base64url characters).
    static func tokens(in text: String) -> [String] {
        text.matches(of: #/stdv_[A-Za-z0-9_-]{43}/#).map { String($0.output) }
    }

    @Test func addPrintsTheTokenOnceAndListShowsTheDeviceWithoutIt() throws {
        let daemon = try daemonWithMembers()
        defer { daemon.shutdown() }
        let added = try command(daemon, as: otherUID, ["devices", "add", "--label", "my-iphone", "--time-zone", "Europe/Berlin"])
        #expect(added.status == 0, "\(added.stdout) \(added.stderr)")
        let token = try #require(Self.tokens(in: added.stdout).first, "no token in: \(added.stdout)")
        #expect(added.stdout.contains("my-iphone") && added.stdout.contains("Europe/Berlin"), "\(added.stdout)")
        #expect(added.stdout.contains("not shown again"), "\(added.stdout)")
        // No listener configured: the next step says how to turn it on.
        #expect(added.stdout.contains("[device_agent]"), "\(added.stdout)")

        let json = try command(daemon, as: otherUID, ["devices", "add", "--label", "work-phone", "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        let result = try JSONValueDecoder().decode(DeviceAddResult.self, from: try JSONValue.parse(json.stdout))
        #expect(result.token.hasPrefix("stdv_") && result.token != token)
        #expect(result.device.label == "work-phone")
        #expect(result.device.owner == "alice")
        #expect(result.device.revokedAt == nil && result.device.lastContactAt == nil)

        // A member's list: their devices, no OWNER column, never contacted, working; no token anywhere.
        let listed = try command(daemon, as: otherUID, ["devices"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let lines = listed.stdout.split(separator: "\n").map(String.init)
        let header = try #require(lines.first)
        for column in ["ID", "LABEL", "TIME ZONE", "LAST CONTACT", "EVENTS", "STATE"] {
            #expect(header.contains(column), "\(header)")
        }
        #expect(!header.contains("OWNER"), "\(header)")
        let row = try #require(lines.first { $0.contains("my-iphone") }, "\(listed.stdout)")
        #expect(row.contains("Europe/Berlin") && row.contains("never") && row.hasSuffix("ok"), "\(row)")
        #expect(lines.contains { $0.contains("work-phone") }, "\(listed.stdout)")
        for format in [[], ["--json"], ["-o", "csv"], ["-o", "wide"]] {
            let output = try command(daemon, as: otherUID, ["devices", "list"] + format)
            #expect(output.status == 0, "\(format): \(output.stderr)")
            #expect(Self.tokens(in: output.stdout).isEmpty, "a token in \(format): \(output.stdout)")
            #expect(output.stdout.hasSuffix("\n"), "\(format) ends without a newline")
        }
        let csv = try command(daemon, as: otherUID, ["devices", "-o", "csv"])
        #expect(csv.stdout.hasPrefix("ID,LABEL,TIME ZONE,LAST CONTACT,EVENTS,STATE\n"), "\(csv.stdout)")

        // An admin sees everyone's devices with their owner; bob sees none of alice's.
        let admin = try steno(daemon, ["devices"])
        #expect(admin.status == 0, "\(admin.stderr)")
        #expect(admin.stdout.split(separator: "\n").first?.contains("OWNER") == true, "\(admin.stdout)")
        #expect(admin.stdout.split(separator: "\n").contains { $0.contains("my-iphone") && $0.contains("alice") }, "\(admin.stdout)")
        let bobs = try command(daemon, as: secondUID, ["devices", "--json"])
        #expect(bobs.status == 0, "\(bobs.stderr)")
        #expect(try JSONValue.parse(bobs.stdout).arrayValue?.isEmpty == true, "\(bobs.stdout)")
    }

    @Test func revokeMarksTheDeviceRevokedAndOnlyItsOwnerOrAnAdminMay() throws {
        let daemon = try daemonWithMembers()
        defer { daemon.shutdown() }
        let added = try command(daemon, as: otherUID, ["devices", "add", "--label", "old-phone", "--json"])
        try #require(added.status == 0, "\(added.stderr)")
        let device = try JSONValueDecoder().decode(DeviceAddResult.self, from: try JSONValue.parse(added.stdout)).device

        let byBob = try command(daemon, as: secondUID, ["devices", "revoke", String(device.id)])
        #expect(byBob.status == 4, "bob revoked alice's device: \(byBob.stdout) \(byBob.stderr)")
        let missing = try command(daemon, as: otherUID, ["devices", "revoke", "999999"])
        #expect(missing.status == 4, "\(missing.stdout) \(missing.stderr)")

        let revoked = try command(daemon, as: otherUID, ["devices", "revoke", String(device.id)])
        #expect(revoked.status == 0, "\(revoked.stderr)")
        #expect(revoked.stdout.contains("revoked device \(device.id)") && revoked.stdout.contains("old-phone"), "\(revoked.stdout)")
        let listed = try command(daemon, as: otherUID, ["devices"])
        let row = try #require(listed.stdout.split(separator: "\n").first { $0.contains("old-phone") }, "\(listed.stdout)")
        #expect(row.hasSuffix("revoked"), "\(row)")

        let json = try steno(daemon, ["devices", "list", "--json"])
        let devices = try JSONValueDecoder().decode([DeviceSummary].self, from: try JSONValue.parse(json.stdout))
        #expect(devices.first { $0.id == device.id }?.revokedAt != nil, "\(json.stdout)")
    }

    @Test func pairPrintsACodeAndItsExpiry() throws {
        let daemon = try daemonWithMembers()
        defer { daemon.shutdown() }
        let paired = try command(daemon, as: otherUID, ["devices", "pair", "--label", "my-iphone", "--time-zone", "Asia/Tokyo"])
        #expect(paired.status == 0, "\(paired.stdout) \(paired.stderr)")
        #expect(paired.stdout.contains("my-iphone") && paired.stdout.contains("Asia/Tokyo"), "\(paired.stdout)")
        #expect(paired.stdout.contains("valid until") && paired.stdout.contains("enter this code"), "\(paired.stdout)")
        #expect(Self.tokens(in: paired.stdout).isEmpty, "\(paired.stdout)")

        let before = Date()
        let json = try command(daemon, as: otherUID, ["devices", "pair", "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        let pairing = try JSONValueDecoder().decode(DevicePairing.self, from: try JSONValue.parse(json.stdout))
        #expect(!pairing.code.isEmpty && pairing.label == nil)
        let minutes = pairing.expiresAt.timeIntervalSince(before) / 60
        #expect(minutes > 9 && minutes <= 10.5, "expires in \(minutes) minutes")
        // The human form shows the code itself, boxed.
        let shown = try command(daemon, as: otherUID, ["devices", "pair"])
        let code = try #require(
            shown.stdout.split(separator: "\n").first { $0.contains("│") }?.replacingOccurrences(of: "│", with: "")
                .trimmingCharacters(in: .whitespaces), "\(shown.stdout)")
        #expect(code.count >= 6, "\(shown.stdout)")
        #expect(code.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" }, "\(code)")
    }

    /// A member cannot make the daemon hold hundreds of codes and devices: the limits of
    /// `[members]` hold, and say which setting to raise.
    @Test func aMembersCodesAndDevicesStopAtTheLimits() throws {
        let daemon = try daemonWithMembers(extraConfig: "[members]\nmax_devices = 1\nmax_pairing_codes = 2\n")
        defer { daemon.shutdown() }
        for _ in 0..<2 { #expect(try command(daemon, as: otherUID, ["devices", "pair"]).status == 0) }
        let third = try command(daemon, as: otherUID, ["devices", "pair"])
        #expect(third.status != 0 && third.stderr.contains("alice has 2 live pairing codes"), "\(third.stdout) \(third.stderr)")
        #expect(third.stderr.contains("[members] max_pairing_codes = 2"), "\(third.stderr)")
        // Bob's codes are his own.
        #expect(try command(daemon, as: secondUID, ["devices", "pair"]).status == 0)

        #expect(try command(daemon, as: otherUID, ["devices", "add", "--label", "phone"]).status == 0)
        let second = try command(daemon, as: otherUID, ["devices", "add", "--label", "tablet"])
        #expect(second.status != 0 && second.stderr.contains("alice has 1 device,"), "\(second.stdout) \(second.stderr)")
        #expect(second.stderr.contains("steno devices revoke ID"), "\(second.stderr)")
    }

    @Test func statusAndNextStepsNameTheListenerWhenItIsOn() throws {
        let listener = NSTemporaryDirectory() + "steno-agent-\(UUID().uuidString.prefix(8)).sock"
        let daemon = try daemonWithMembers(extraConfig: "[device_agent]\nlisten = \"unix:\(listener)\"\n")
        defer {
            daemon.shutdown()
            try? FileManager.default.removeItem(atPath: listener)
        }
        let status = try steno(daemon, ["status"])
        #expect(status.status == 0, "\(status.stderr)")
        let row = try #require(status.stdout.split(separator: "\n").first { $0.hasPrefix("device agent") }, "\(status.stdout)")
        #expect(row.contains(listener), "\(row)")
        let paired = try command(daemon, as: otherUID, ["devices", "pair"])
        #expect(paired.status == 0, "\(paired.stderr)")
        #expect(paired.stdout.contains(listener) && !paired.stdout.contains("[device_agent]"), "\(paired.stdout)")
    }

    @Test func aPhonePairedWithTheCodeShowsItsLastContactAndEventsUntilRevoked() async throws {
        let daemon = try daemonWithMembers(extraConfig: "[device_agent]\nlisten = \"127.0.0.1:0\"\n")
        defer { daemon.shutdown() }
        let agent = try DeviceAgentHTTP(daemon: daemon)
        #expect(agent.baseURL.hasPrefix("http://127.0.0.1:") && !agent.baseURL.hasSuffix(":0"), "\(agent.baseURL)")

        let paired = try command(daemon, as: otherUID, ["devices", "pair", "--label", "my-iphone", "--time-zone", "Europe/Berlin", "--json"])
        try #require(paired.status == 0, "\(paired.stderr)")
        let code = try JSONValueDecoder().decode(DevicePairing.self, from: try JSONValue.parse(paired.stdout)).code
        // Typed on a phone: lower case, the dash left out.
        let typed = code.lowercased().replacingOccurrences(of: "-", with: " ")
        let registered = try await agent.post("/sync/devices/register", json: ["pairingCode": .string(typed), "label": "ignored"])
        #expect(registered.status == 201, "\(registered.json)")
        let token = try #require(registered.json["deviceToken"]?.stringValue, "\(registered.json)")
        let id = try #require(registered.json["device"]?["id"]?.intValue)
        #expect(registered.json["device"]?["label"]?.stringValue == "my-iphone", "the label of steno devices pair wins")

        let events = try JSONValue.parse(#"{"events": [{"externalId": "A1", "externalCalendarId": "CAL-1", "calendarTitle": "Work", "title": "Standup", "date": "2026-11-25", "startTime": "09:30", "endTime": "09:45"}, {"externalId": "A2", "externalCalendarId": "CAL-1", "title": "Offsite", "date": "2026-11-26"}]}"#)
        let pushed = try await agent.post("/sync/apple/events/upsert", token: token, json: events)
        #expect(pushed.status == 200 && pushed.json["counts"]?["ok"] == .int(2), "\(pushed.json)")

        let listed = try command(daemon, as: otherUID, ["devices"])
        let row = try #require(listed.stdout.split(separator: "\n").first { $0.contains("my-iphone") }, "\(listed.stdout)")
        #expect(row.contains("just now (") && row.contains("Europe/Berlin") && row.hasSuffix("ok"), "\(row)")
        let json = try JSONValueDecoder().decode([DeviceSummary].self, from: try JSONValue.parse(try command(daemon, as: otherUID, ["devices", "--json"]).stdout))
        let device = try #require(json.first { $0.id == id })
        #expect(device.events == 2 && device.calendars == 1 && device.lastContactAt != nil, "\(device)")
        #expect(Self.tokens(in: listed.stdout).isEmpty && !daemon.log.contains(token), "the token is never shown or logged again")

        // Used once: the same code again is refused.
        let again = try await agent.post("/sync/devices/register", json: ["pairingCode": .string(code)])
        #expect(again.status == 401, "\(again.json)")

        let revoked = try command(daemon, as: otherUID, ["devices", "revoke", String(id)])
        #expect(revoked.status == 0 && revoked.stdout.contains("its 2 mirrored events stay"), "\(revoked.stdout) \(revoked.stderr)")
        let refused = try await agent.post("/sync/apple/events/upsert", token: token, json: events)
        #expect(refused.status == 401, "\(refused.json)")
    }
}
