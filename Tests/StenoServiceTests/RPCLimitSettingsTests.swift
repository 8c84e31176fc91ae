import Foundation
import Testing

@testable import StenoService

/// The `[rpc]` settings that bound one caller's share: defaults, values read, bounds enforced.
@Suite("RPC limit settings")
struct RPCLimitSettingsTests {
    func load(_ toml: String) throws -> StenoConfiguration {
        let file = NSTemporaryDirectory() + "steno-rpc-limits-" + UUID().uuidString + ".toml"
        try toml.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        return try StenoConfiguration.load(overrides: .init(configFile: file), environment: [:], uid: 1000)
    }

    @Test func defaultsAndValuesFromTheFile() throws {
        let defaults = try load("")
        #expect(defaults.rpc.maxRunningPerUID == 4)
        #expect(defaults.rpc.maxConnectionsPerUID == 64)
        #expect(defaults.rpc.idleTimeoutSeconds == 300)
        #expect(defaults.rpc.unmappedIdleTimeoutSeconds == 10)
        let configured = try load(
            "[rpc]\nmax_running_per_uid = 2\nmax_connections_per_uid = 8\nidle_timeout_seconds = 60\nunmapped_idle_timeout_seconds = 3\n")
        #expect(configured.rpc.maxRunningPerUID == 2)
        #expect(configured.rpc.maxConnectionsPerUID == 8)
        #expect(configured.rpc.idleTimeoutSeconds == 60)
        #expect(configured.rpc.unmappedIdleTimeoutSeconds == 3)
    }

    @Test func valuesOutOfBoundsAreExplained() throws {
        for (toml, expected) in [
            ("max_running_per_uid = 0", "rpc.max_running_per_uid must be an integer from 1 to 1024"),
            ("max_connections_per_uid = 1000000", "rpc.max_connections_per_uid must be an integer from 1 to 100000"),
            ("idle_timeout_seconds = \"5\"", "rpc.idle_timeout_seconds must be an integer"),
            ("unmapped_idle_timeout_seconds = -1", "rpc.unmapped_idle_timeout_seconds must be an integer"),
        ] {
            #expect(throws: ConfigurationError.self) { _ = try load("[rpc]\n" + toml) }
            do {
                _ = try load("[rpc]\n" + toml)
            } catch {
                #expect("\(error)".contains(expected), "\(toml): \(error)")
            }
        }
    }
}
