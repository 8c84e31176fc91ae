import Foundation
import Testing

@testable import StenoService

@Suite("Configuration")
struct ConfigurationTests {
    let folder: String = {
        let path = NSTemporaryDirectory() + "steno-config-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    func write(_ toml: String) throws -> String {
        let path = folder + "/stenod.toml"
        try toml.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func defaultsForAUserAndForRoot() throws {
        let user = try StenoConfiguration.load(overrides: .init(), environment: ["XDG_RUNTIME_DIR": "/run/user/1000", "HOME": "/home/a"], uid: 1000)
        #expect(user.socketPath == "/run/user/1000/steno/stenod.sock")
        #expect(user.dataDirectory == "/home/a/.local/share/steno")
        #expect(user.inboxDirectory == "/home/a/.local/share/steno/inbox")
        #expect(user.databasePath == "/home/a/.local/share/steno/catalog.sqlite")
        #expect(user.socketMode == 0o660)
        #expect(user.rpc.maxFrameBytes == 1 << 20)
        let root = try StenoConfiguration.load(overrides: .init(), environment: [:], uid: 0)
        #expect(root.socketPath == "/run/steno/stenod.sock")
        #expect(root.dataDirectory == "/var/lib/steno")
        let systemd = try StenoConfiguration.load(overrides: .init(), environment: ["STATE_DIRECTORY": "/var/lib/steno2"], uid: 0)
        #expect(systemd.dataDirectory == "/var/lib/steno2")
    }

    @Test func flagBeatsEnvironmentBeatsFileBeatsDefault() throws {
        let file = try write("""
            socket = "/file/stenod.sock"
            data_dir = "/file/data"
            inbox = "/file/inbox"
            log_level = "debug"
            socket_group = "steno"
            socket_mode = "0600"
            [rpc]
            max_frame_bytes = 65536
            """)
        let fromFile = try StenoConfiguration.load(overrides: .init(configFile: file), environment: [:], uid: 1000)
        #expect(fromFile.socketPath == "/file/stenod.sock")
        #expect(fromFile.inboxDirectory == "/file/inbox")
        #expect(fromFile.databasePath == "/file/data/catalog.sqlite")
        #expect(fromFile.socketGroup == "steno")
        #expect(fromFile.socketMode == 0o600)
        #expect(fromFile.rpc.maxFrameBytes == 65536)
        #expect(fromFile.logLevel == "debug")

        let environment = ["STENO_CONFIG": file, "STENO_SOCKET": "/env/s.sock", "STENO_DATA_DIR": "/env/data"]
        let fromEnvironment = try StenoConfiguration.load(overrides: .init(), environment: environment, uid: 1000)
        #expect(fromEnvironment.socketPath == "/env/s.sock")
        #expect(fromEnvironment.dataDirectory == "/env/data")
        #expect(fromEnvironment.inboxDirectory == "/file/inbox", "the file's explicit inbox stays")

        let fromFlags = try StenoConfiguration.load(
            overrides: .init(socketPath: "/flag/s.sock", inboxDirectory: "/flag/inbox"), environment: environment, uid: 1000)
        #expect(fromFlags.socketPath == "/flag/s.sock")
        #expect(fromFlags.inboxDirectory == "/flag/inbox")
    }

    @Test func relativeFlagPathsAreResolved() throws {
        let configuration = try StenoConfiguration.load(overrides: .init(dataDirectory: "demo/data"), environment: [:], uid: 1000)
        #expect(configuration.dataDirectory == FileManager.default.currentDirectoryPath + "/demo/data")
    }

    @Test func mistakesAreExplained() throws {
        let cases: [(String, String)] = [
            ("sockett = \"/x\"", "unknown setting \"sockett\""),
            ("socket = 5", "socket must be a string"),
            ("socket_mode = \"rw\"", "octal"),
            ("[rpc]\nmax_frame_bytes = 10", "rpc.max_frame_bytes must be an integer from 1024"),
            ("[rpc]\nspeed = 1", "unknown setting \"rpc.speed\""),
            ("log_level = \"loud\"", "log level"),
            ("socket = \"unterminated", "stenod.toml"),
        ]
        for (toml, expected) in cases {
            let file = try write(toml)
            #expect(throws: (any Error).self, "\(toml)") {
                _ = try StenoConfiguration.load(overrides: .init(configFile: file), environment: [:], uid: 1000)
            }
            do {
                _ = try StenoConfiguration.load(overrides: .init(configFile: file), environment: [:], uid: 1000)
            } catch {
                #expect("\(error)".contains(expected), "\(toml): \(error)")
            }
        }
    }

    @Test func missingFileIsExplained() {
        #expect(throws: ConfigurationError.self) {
            _ = try StenoConfiguration.load(overrides: .init(configFile: "/nonexistent/stenod.toml"), environment: [:], uid: 1000)
        }
    }

    @Test func deployedExampleConfigurationLoads() throws {
        let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("deploy/stenod.toml").path
        let configuration = try StenoConfiguration.load(overrides: .init(configFile: example), environment: [:], uid: 0)
        #expect(configuration.socketPath == "/run/steno/stenod.sock")
    }
}
