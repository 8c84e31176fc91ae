import Foundation
import Logging
import StenoCalendar
import StenoCatalog
import StenoCore
import StenoSQLite
import Testing

@testable import StenoService

/// Accounts stored with a password in their URL (before accounts.add moved it) get it moved
/// into their sealed secret at start-up.
@Suite("Credentials in stored account URLs")
struct URLCredentialsTests {
    let root = NSTemporaryDirectory() + "steno-urlcred-" + UUID().uuidString

    @Test func aStoredURLsPasswordMovesIntoTheSealedSecret() async throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let catalog = try await SQLiteCatalog.open(path: root + "/catalog.sqlite")
        let alice = try await catalog.addUser(UserDraft(name: "alice", emails: ["alice@example.com"]))
        let secrets = SecretBox(keyBytes: Array(repeating: 9, count: 32))
        let ics = try await catalog.addAccount(
            CalendarAccountDraft(
                provider: .ics, ownerID: alice.id, displayName: "cal", settings: ["source": "https://alice:p%40ss@cal.example/a.ics"]),
            now: Date())
        let caldav = try await catalog.addAccount(
            CalendarAccountDraft(
                provider: .caldav, ownerID: alice.id, displayName: "dav", settings: ["url": "https://bob:pw2@dav.example/", "user": "bob"],
                sealedSecret: try secrets.seal(CalendarCredentials(accessToken: "kept"))),
            now: Date())
        let plain = try await catalog.addAccount(
            CalendarAccountDraft(provider: .ics, ownerID: alice.id, displayName: "plain", settings: ["source": "https://cal.example/b.ics"]),
            now: Date())

        await URLCredentials.moveStoredCredentials(store: catalog, secrets: secrets, logger: Logger(label: "test"))

        let movedICS = try await catalog.account(id: ics.id)
        #expect(movedICS.settings == ["source": "https://cal.example/a.ics", "user": "alice"])
        let icsSecret = try #require(try await catalog.sealedSecret(accountID: ics.id))
        #expect(try secrets.unseal(icsSecret).password == "p@ss")
        let movedDAV = try await catalog.account(id: caldav.id)
        #expect(movedDAV.settings == ["url": "https://dav.example/", "user": "bob"])
        let davSecret = try #require(try await catalog.sealedSecret(accountID: caldav.id))
        #expect(try secrets.unseal(davSecret) == CalendarCredentials(password: "pw2", accessToken: "kept"))
        #expect(try await catalog.account(id: plain.id).settings == ["source": "https://cal.example/b.ics"])
        #expect(try await catalog.sealedSecret(accountID: plain.id) == nil)
    }
}
