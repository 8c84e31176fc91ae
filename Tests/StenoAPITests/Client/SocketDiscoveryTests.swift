import Foundation
import StenoAPI
import Testing

/// The order in which `steno` looks for the daemon's socket.
@Suite("Socket discovery")
struct SocketDiscoveryTests {
    /// Config files as a dictionary: path → contents.
    func candidates(
        flag: String? = nil, environment: [String: String], files: [String: String] = [:], uid: UInt32 = 1000
    ) throws(ClientConfigError) -> [SocketLocation] {
        try SocketDiscovery.candidates(flag: flag, environment: environment, uid: uid, systemConfigPath: "/etc/steno/client.toml") {
            path throws(ClientConfigError) in
            try files[path].map { text throws(ClientConfigError) in try ClientConfigFile.parse(text, path: path) }
        }
    }

    let session = ["HOME": "/home/alice", "XDG_RUNTIME_DIR": "/run/user/1000"]

    @Test func flagThenEnvironmentThenConfigFilesAreEachUsedAlone() throws {
        let files = [
            "/home/alice/.config/steno/client.toml": "socket = \"/srv/user.sock\"",
            "/etc/steno/client.toml": "socket = \"/srv/system.sock\"",
        ]
        let environment = session.merging(["STENO_SOCKET": "/srv/env.sock"]) { _, new in new }
        #expect(try candidates(flag: "/srv/flag.sock", environment: environment, files: files) == [SocketLocation(path: "/srv/flag.sock", origin: .flag)])
        #expect(try candidates(environment: environment, files: files) == [SocketLocation(path: "/srv/env.sock", origin: .environment)])
        #expect(try candidates(environment: session, files: files)
            == [SocketLocation(path: "/srv/user.sock", origin: .configFile("/home/alice/.config/steno/client.toml"))])
        #expect(try candidates(environment: session, files: ["/etc/steno/client.toml": files["/etc/steno/client.toml"] ?? ""])
            == [SocketLocation(path: "/srv/system.sock", origin: .configFile("/etc/steno/client.toml"))])
        // XDG_CONFIG_HOME replaces ~/.config; a file without a socket falls through.
        let xdg = session.merging(["XDG_CONFIG_HOME": "/cfg"]) { _, new in new }
        #expect(try candidates(environment: xdg, files: ["/cfg/steno/client.toml": "socket = \"/srv/xdg.sock\""]).map(\.path) == ["/srv/xdg.sock"])
        #expect(try candidates(environment: xdg, files: ["/cfg/steno/client.toml": "# empty", "/etc/steno/client.toml": "socket = \"/s\""])
            .map(\.path) == ["/s"])
    }

    @Test func withNothingChosenTheRuntimeSocketThenTheSystemSocket() throws {
        #expect(try candidates(environment: session) == [
            SocketLocation(path: "/run/user/1000/steno/stenod.sock", origin: .runtimeDirectory),
            SocketLocation(path: "/run/steno/stenod.sock", origin: .systemDefault),
        ])
        // Without a runtime folder: the daemon's own default for this user, then the system one.
        #expect(try candidates(environment: ["HOME": "/home/alice"]).map(\.path) == ["/tmp/steno-1000/stenod.sock", "/run/steno/stenod.sock"])
        // Root without a runtime folder: one place, tried once.
        #expect(try candidates(environment: [:], uid: 0).map(\.path) == ["/run/steno/stenod.sock"])
    }

    @Test func aBrokenConfigFileIsAnError() {
        #expect(throws: ClientConfigError.self) {
            try candidates(environment: session, files: ["/home/alice/.config/steno/client.toml": "socket: /x"])
        }
    }

    @Test func nothingAnsweringNamesEveryPlaceAndItsOrigin() {
        let places = [
            SocketLocation(path: "/nonexistent/run/steno/stenod.sock", origin: .runtimeDirectory),
            SocketLocation(path: "/nonexistent/stenod.sock", origin: .systemDefault),
        ]
        do {
            _ = try SocketDiscovery.connect(places)
            Issue.record("connected to nothing")
        } catch {
            guard case .daemonNotRunning(let tried) = error else { return #expect(Bool(false), "\(error)") }
            #expect(tried == places)
            #expect(error.description.contains("/nonexistent/run/steno/stenod.sock ($XDG_RUNTIME_DIR), /nonexistent/stenod.sock (system default)"))
        }
    }
}
