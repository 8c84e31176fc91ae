import Foundation
import StenoAPI
import StenoTesting
import StenoTestTraits
import Testing

/// A daemon logging at debug level never writes the secrets key or a stored password.
@Suite("Secrets stay out of the log", .blocksThreads, .serialized)
struct SecretLoggingEndToEndTests {
    /// The ways a key's bytes are printed: a decimal array (the default description of
    /// `[UInt8]`), hex pairs, and the first few bytes of each (a truncated log line).
    static func printedForms(of key: [UInt8]) -> [String] {
        let decimal = key.map(String.init).joined(separator: ", ")
        let hex = key.map { String(format: "%02x", $0) }.joined()
        let spacedHex = key.map { String(format: "%02x", $0) }.joined(separator: " ")
        return [decimal, String(decimal.prefix(24)), hex, String(hex.prefix(16)), spacedHex, String(spacedHex.prefix(24))]
    }

    @Test func aDebugLogHoldsNeitherTheKeyNorAPassword() throws {
        // Alice is a member: her account may reach loopback only where the configuration allows it.
        let daemon = try TestDaemon(config: "[calendars]\nmember_networks = [\"127.0.0.1\"]\n", arguments: ["--log-level", "debug"])
        defer { daemon.shutdown() }
        #expect(try steno(daemon, ["users", "add", "alice", "--email", "alice@example.com"]).status == 0)
        let password = "pw-\(UUID().uuidString)"
        let passwordFile = daemon.root + "/alice.password"
        try password.write(toFile: passwordFile, atomically: true, encoding: .utf8)
        // Nothing listens on port 9 of loopback: the sync fails, after opening the sealed password.
        let added = try steno(daemon, [
            "accounts", "add", "ics", "http://127.0.0.1:9/alice.ics", "--user", "alice", "--password-file", passwordFile,
            "--owner", "alice",
        ])
        #expect(added.status == 0, "\(added.stderr)")
        // The first sync opened the sealed password and failed.
        let accounts = try poll(timeout: 20, {
            try JSONValueDecoder().decode([AccountSummary].self, from: try JSONValue.parse(try steno(daemon, ["accounts", "--json"]).stdout))
        }, until: { $0.first?.lastError != nil })
        #expect(accounts.first?.lastError != nil, "the account was not synced")
        // A restart: the services are started and stopped again, with the key loaded.
        #expect(daemon.stop() == 0)
        try daemon.start()
        #expect(daemon.stop() == 0)

        let key = try #require(FileManager.default.contents(atPath: daemon.dataDirectory + "/secret.key"))
        #expect(key.count == 32)
        let log = daemon.log
        #expect(log.contains("DEBUG"), "the daemon did not log at debug level")
        for form in Self.printedForms(of: Array(key)) {
            #expect(!log.contains(form), "the log shows the key as \(form)")
        }
        #expect(!log.contains("keyBytes"))
        #expect(!log.contains(password), "the log shows the password")
    }
}
