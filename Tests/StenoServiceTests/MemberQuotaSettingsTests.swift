import Foundation
import Testing

@testable import StenoService

/// The `[members]` settings: defaults, values read, bounds enforced.
@Suite("Member quota settings")
struct MemberQuotaSettingsTests {
    func load(_ toml: String) throws -> StenoConfiguration {
        let file = NSTemporaryDirectory() + "steno-members-" + UUID().uuidString + ".toml"
        try toml.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        return try StenoConfiguration.load(overrides: .init(configFile: file), environment: [:], uid: 1000)
    }

    @Test func defaultsAndValuesFromTheFile() throws {
        let defaults = try load("").members
        #expect((defaults.calendarAccounts, defaults.devices, defaults.pairingCodes) == (20, 10, 3))
        let configured = try load("[members]\nmax_calendar_accounts = 0\nmax_devices = 2\nmax_pairing_codes = 1\n").members
        #expect((configured.calendarAccounts, configured.devices, configured.pairingCodes) == (0, 2, 1))
        #expect(configured.deviceLimit.setting == "[members] max_devices" && configured.deviceLimit.maximum == 2)
    }

    @Test(arguments: [
        ("max_devices = -1", "members.max_devices must be an integer from 0 (none) to 100000"),
        ("max_pairing_codes = \"3\"", "members.max_pairing_codes must be an integer"),
        ("max_accounts = 3", "unknown setting \"members.max_accounts\""),
    ])
    func mistakesAreExplained(toml: String, expected: String) throws {
        do {
            _ = try load("[members]\n" + toml)
            Issue.record("\(toml) was accepted")
        } catch {
            #expect("\(error)".contains(expected), "\(error)")
        }
    }
}
