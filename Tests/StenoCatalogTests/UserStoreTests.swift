import Foundation
import StenoCatalog
import StenoCore
import Testing

@Suite("Users in the catalog")
struct UserStoreTests {
    @Test(arguments: StoreBackend.available) func addFindUpdateRemove(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
        let alice = try await catalog.addUser(
            UserDraft(name: "alice", displayName: "Alice", emails: ["Alice@Example.com ", "alice@example.com"], uids: [1000, 1000], role: .admin))
        #expect(alice.emails == ["alice@example.com"])
        #expect(alice.uids == [1000])
        #expect(try await catalog.user(matching: "ALICE@example.com").id == alice.id)
        #expect(try await catalog.user(matching: String(alice.id)).name == "alice")
        #expect(try await catalog.user(matching: "alice").name == "alice")
        #expect(try await catalog.user(forUID: 1000)?.name == "alice")
        #expect(try await catalog.user(forUID: 1001) == nil)

        let updated = try await catalog.updateUser(id: alice.id, UserChange(name: "alice.m", displayName: .some(nil), uids: [1001]))
        #expect(updated.name == "alice.m")
        #expect(updated.displayName == nil)
        #expect(try await catalog.user(forUID: 1000) == nil)
        #expect(try await catalog.user(forUID: 1001)?.id == alice.id)

        let removed = try await catalog.removeUser(id: alice.id)
        #expect(removed.name == "alice.m")
        await #expect(throws: StoreError.notFound(entity: "user", reference: "alice.m")) {
            _ = try await catalog.user(matching: "alice.m")
        }
        // The emails and uids went with the user: another may take them.
        let successor = try await catalog.addUser(UserDraft(name: "alice", emails: ["alice@example.com"], uids: [1001]))
        #expect(try await catalog.user(forUID: 1001)?.id == successor.id)
    }

    @Test(arguments: StoreBackend.available) func emailsKeepTheOrderGiven(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
        let user = try await catalog.addUser(UserDraft(name: "dora", emails: ["zed@x.org", "amy@x.org", "max@x.org"]))
        #expect(user.emails == ["zed@x.org", "amy@x.org", "max@x.org"])
        let changed = try await catalog.updateUser(id: user.id, UserChange(emails: ["max@x.org", "zed@x.org"]))
        #expect(changed.emails == ["max@x.org", "zed@x.org"])
        #expect(try await catalog.user(matching: "MAX@x.org").id == user.id)
    }

    @Test(arguments: StoreBackend.available) func conflictsNameTheOtherUser(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
        _ = try await catalog.addUser(UserDraft(name: "alice", emails: ["alice@example.com"], uids: [1000]))
        let bob = try await catalog.addUser(UserDraft(name: "bob"))
        await #expect(throws: StoreError.conflict("a user named \"ALICE\" exists already")) {
            _ = try await catalog.addUser(UserDraft(name: "ALICE"))
        }
        await #expect(throws: StoreError.conflict("the email alice@example.com belongs to user \"alice\" already")) {
            _ = try await catalog.updateUser(id: bob.id, UserChange(emails: ["alice@example.com"]))
        }
        await #expect(throws: StoreError.conflict("uid 1000 belongs to user \"alice\" already")) {
            _ = try await catalog.addUser(UserDraft(name: "carol", uids: [1000]))
        }
        // A user may keep their own values on update.
        _ = try await catalog.updateUser(id: bob.id, UserChange(name: "bob"))
    }

    @Test(arguments: StoreBackend.available) func invalidFieldsAreRejected(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
        for name in ["", ".hidden", "-x", "a/b", "../up", String(repeating: "x", count: 65)] {
            await #expect(throws: StoreError.self, "name \(name)") { _ = try await catalog.addUser(UserDraft(name: name)) }
        }
        await #expect(throws: StoreError.self) { _ = try await catalog.addUser(UserDraft(name: "x", emails: ["not-an-email"])) }
    }

    @Test(arguments: StoreBackend.available) func pagingByID(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
        for index in 0..<25 { _ = try await catalog.addUser(UserDraft(name: "u\(index)", emails: ["u\(index)@x.org"])) }
        var seen: [String] = []
        var after: Int64?
        for _ in 0..<10 {
            let page = try await catalog.users(afterID: after, limit: 10)
            seen += page.map(\.name)
            guard let last = page.last, page.count == 10 else { break }
            after = last.id
        }
        #expect(seen.count == 25)
        #expect(Set(seen).count == 25)
        #expect(try await catalog.users(afterID: nil, limit: 1).first?.emails == ["u0@x.org"])
    }
}
