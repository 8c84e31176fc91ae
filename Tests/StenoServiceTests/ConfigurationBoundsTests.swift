import Foundation
import Testing

@testable import StenoService

/// Every number a configuration file may hold is bounded when it is loaded, with an error
/// naming the setting; settings that would open the daemon up or lose its key are refused.
@Suite("Configuration bounds")
struct ConfigurationBoundsTests {
    let folder: String = {
        let path = NSTemporaryDirectory() + "steno-config-bounds-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    /// The error loading `toml` gives, nil when it loads.
    func loadError(_ toml: String) throws -> String? {
        let file = folder + "/stenod.toml"
        try toml.write(toFile: file, atomically: true, encoding: .utf8)
        do {
            _ = try StenoConfiguration.load(overrides: .init(configFile: file), environment: [:], uid: 1000)
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// Every numeric setting, by table and key.
    static let numericSettings: [(table: String, key: String)] = [
        ("rpc", "max_frame_bytes"), ("rpc", "max_in_flight_per_connection"), ("rpc", "threads"),
        ("jobs", "workers"), ("jobs", "lease_seconds"), ("jobs", "max_attempts"),
        ("watcher", "settle_seconds"), ("watcher", "rescan_minutes"), ("watcher", "poll_seconds"),
        ("calendars", "window_past_days"), ("calendars", "window_future_days"), ("calendars", "sync_interval_minutes"),
        ("links", "tolerance_minutes"), ("links", "threshold"), ("links", "ambiguity_margin"),
    ]

    @Test(arguments: ["1_000_000_000", "1e300", "-1"])
    func everyNumberIsBoundedWithAnErrorNamingIt(value: String) throws {
        for (table, key) in Self.numericSettings {
            let error = try loadError("[\(table)]\n\(key) = \(value)\n")
            #expect(error?.contains("\(table).\(key)") == true && error?.contains(" to ") == true, "\(table).\(key) = \(value): \(error ?? "accepted")")
        }
    }

    @Test func aThreadCountThatWouldCrashTheDaemonIsRefused() throws {
        let error = try loadError("[rpc]\nthreads = 100000\n")
        #expect(error?.contains("rpc.threads must be an integer from 0 to 256") == true, "\(error ?? "accepted")")
        #expect(try loadError("[rpc]\nthreads = 8\n") == nil)
    }

    @Test func aSocketModeWiderThanOwnerAndGroupIsRefused() throws {
        for mode in ["0666", "0777", "0662", "0670"] {
            let error = try loadError("socket_mode = \"\(mode)\"\n")
            #expect(error?.contains("socket_mode \"\(mode)\"") == true && error?.contains("0660") == true, "\(mode): \(error ?? "accepted")")
        }
        for mode in ["0660", "0600", "0640"] {
            #expect(try loadError("socket_mode = \"\(mode)\"\n") == nil, "\(mode)")
        }
    }

    @Test func aKeyFileInAMissingFolderIsRefused() throws {
        let missing = folder + "/no-such-folder/secret.key"
        let error = try loadError("[calendars]\nsecret_key_file = \"\(missing)\"\n")
        #expect(error?.contains("secret_key_file") == true && error?.contains("\(folder)/no-such-folder does not exist") == true, "\(error ?? "accepted")")
        #expect(!FileManager.default.fileExists(atPath: folder + "/no-such-folder"))
        #expect(try loadError("[calendars]\nsecret_key_file = \"\(folder)/secret.key\"\n") == nil)
    }
}
