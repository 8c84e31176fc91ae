import Foundation
import StenoAPI
import StenoTesting
import StenoTestTraits
import Testing

/// A lost secrets key is not silently replaced while accounts need it.
@Suite("A missing secrets key", .blocksThreads, .serialized)
struct MissingSecretKeyEndToEndTests {
    func accounts(_ daemon: TestDaemon) throws -> [AccountSummary] {
        let listed = try steno(daemon, ["accounts", "--json"])
        #expect(listed.status == 0, "\(listed.stderr)")
        return try JSONValueDecoder().decode([AccountSummary].self, from: try JSONValue.parse(listed.stdout))
    }

    @Test func refusesToStartAndNamesTheFix() throws {
        // Alice is a member: her account may reach loopback only where the configuration allows it.
        let daemon = try TestDaemon(config: "[calendars]\nmember_networks = [\"127.0.0.1\"]\n")
        defer { daemon.shutdown() }
        #expect(try steno(daemon, ["users", "add", "alice", "--email", "alice@example.com"]).status == 0)
        let passwordFile = daemon.root + "/alice.password"
        try "pw-alice".write(toFile: passwordFile, atomically: true, encoding: .utf8)
        let added = try steno(daemon, [
            "accounts", "add", "ics", "http://127.0.0.1:9/alice.ics", "--user", "alice", "--password-file", passwordFile,
            "--owner", "alice",
        ])
        #expect(added.status == 0, "\(added.stderr)")
        let accountID = try #require(try accounts(daemon).first?.id)
        #expect(daemon.stop() == 0)

        let key = daemon.dataDirectory + "/secret.key"
        try FileManager.default.removeItem(atPath: key)
        let refusal = #expect(throws: TestDaemonError.self) { try daemon.start(timeout: 15) }
        let message = refusal?.description ?? ""
        #expect(message.contains("the secrets key \(key) is missing") && message.contains("(\(accountID))"), "\(message)")
        #expect(message.contains("Restore the key") && message.contains("stenod --forget-credentials"), "\(message)")
        #expect(!FileManager.default.fileExists(atPath: key), "a new key was made although the old one is needed")

        // Giving the credentials up: a new key, and the account waits for its password.
        try daemon.start(additionalArguments: ["--forget-credentials"])
        #expect(FileManager.default.fileExists(atPath: key))
        let account = try #require(try accounts(daemon).first)
        #expect(account.health == .needsCredentials && account.lastError?.contains("add this account's credentials again") == true)
        // From then on it starts as usual.
        #expect(daemon.stop() == 0)
        try daemon.start()
    }

    @Test func aKeyWithNothingSealedIsCreatedAfresh() throws {
        let daemon = try TestDaemon()
        defer { daemon.shutdown() }
        #expect(daemon.stop() == 0)
        let key = daemon.dataDirectory + "/secret.key"
        try FileManager.default.removeItem(atPath: key)
        try daemon.start()
        #expect(FileManager.default.fileExists(atPath: key))
    }
}
