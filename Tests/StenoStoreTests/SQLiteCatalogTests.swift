import Foundation
import GRDB
import StenoCore
import Testing

@testable import StenoStore

/// A fresh catalog in a temporary folder, removed afterwards.
final class TemporaryCatalog: Sendable {
    let folder: String
    var path: String { folder + "/catalog.sqlite" }

    init() {
        folder = NSTemporaryDirectory() + "steno-store-" + UUID().uuidString
    }

    deinit { try? FileManager.default.removeItem(atPath: folder) }

    func open() async throws -> SQLiteCatalog { try await SQLiteCatalog.open(path: path) }

    /// A catalog file as migration `identifier` left it, holding `rows` (SQL inserts).
    static func migrated(upTo identifier: String, rows: String) async throws -> TemporaryCatalog {
        let temporary = TemporaryCatalog()
        try FileManager.default.createDirectory(atPath: temporary.folder, withIntermediateDirectories: true)
        let queue = try DatabaseQueue(path: temporary.path)
        try SchemaMigrations.migrator().migrate(queue, upTo: identifier)
        try await queue.write { db in try db.execute(sql: rows) }
        try queue.close()
        return temporary
    }
}

@Suite("SQLite catalog")
struct SQLiteCatalogTests {
    @Test func migrationsCreateTheWholeDomain() async throws {
        let temporary = TemporaryCatalog()
        let catalog = try await temporary.open()
        let tables = try await catalog.writer.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
        }
        for table in [
            "users", "user_emails", "user_uids", "calendar_accounts", "calendars", "events", "event_attendees",
            "meetings", "recordings", "recording_paths", "links", "link_attendees", "link_history", "jobs",
        ] {
            #expect(tables.contains(table), "missing table \(table)")
        }
        let statistics = try await catalog.statistics()
        #expect(statistics.schemaVersion == SchemaMigrations.files.count)
        #expect(statistics.counts["users"] == 0)
    }

    @Test func pragmasAreSetForEveryConnection() async throws {
        let temporary = TemporaryCatalog()
        let catalog = try await temporary.open()
        let (journal, foreignKeys) = try await catalog.writer.read { db in
            (try String.fetchOne(db, sql: "PRAGMA journal_mode"), try Bool.fetchOne(db, sql: "PRAGMA foreign_keys"))
        }
        #expect(journal == "wal")
        #expect(foreignKeys == true)
    }

    @Test func reopeningAppliesNothingTwice() async throws {
        let temporary = TemporaryCatalog()
        _ = try await temporary.open().addUser(UserDraft(name: "alice"))
        let reopened = try await temporary.open()
        #expect(try await reopened.users(afterID: nil, limit: 10).map(\.name) == ["alice"])
    }

    @Test func aDatabaseFromANewerStenoIsRefused() async throws {
        let temporary = TemporaryCatalog()
        let catalog = try await temporary.open()
        try await catalog.writer.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('9999_from_the_future')")
        }
        await #expect {
            _ = try await temporary.open()
        } throws: { error in
            guard case StoreError.schemaTooNew = error else { return false }
            return "\(error)".contains("9999_from_the_future") && "\(error)".contains("newer Steno")
        }
    }

    @Test func statisticsFollowCommits() async throws {
        let temporary = TemporaryCatalog()
        let catalog = try await temporary.open()
        #expect(try await catalog.statistics().counts["users"] == 0)
        #expect(try await catalog.statistics().counts["users"] == 0)
        _ = try await catalog.addUser(UserDraft(name: "bob"))
        #expect(try await catalog.statistics().counts["users"] == 1)
        try await catalog.writer.write { db in
            try db.execute(sql: "INSERT INTO jobs (kind, run_at, created_at, updated_at) VALUES ('x', 0, 0, 0)")
        }
        #expect(try await catalog.statistics().queueDepth == 1)
    }

    @Test func backupIsAConsistentCopy() async throws {
        let temporary = TemporaryCatalog()
        let catalog = try await temporary.open()
        _ = try await catalog.addUser(UserDraft(name: "carol", emails: ["carol@example.com"]))
        let target = temporary.folder + "/backup.sqlite"
        let bytes = try await catalog.backup(to: target)
        #expect(bytes > 0)
        let copy = try DatabaseQueue(path: target)
        #expect(try await copy.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM users") } == 1)
        await #expect(throws: StoreError.self) { _ = try await catalog.backup(to: target) }
        await #expect(throws: StoreError.self) { _ = try await catalog.backup(to: "relative.sqlite") }
        await #expect(throws: StoreError.self) { _ = try await catalog.backup(to: "/nonexistent-folder/x.sqlite") }
    }
}

@Suite("Users in the catalog")
struct UserStoreTests {
    @Test func addFindUpdateRemove() async throws {
        let temporary = TemporaryCatalog()
        let catalog = try await temporary.open()
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
        let leftovers = try await catalog.writer.read { db in
            try Int.fetchOne(db, sql: "SELECT (SELECT COUNT(*) FROM user_emails) + (SELECT COUNT(*) FROM user_uids)")
        }
        #expect(leftovers == 0, "emails and uids go with the user")
    }

    @Test func conflictsNameTheOtherUser() async throws {
        let temporary = TemporaryCatalog()
        let catalog = try await temporary.open()
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

    @Test func invalidFieldsAreRejected() async throws {
        let temporary = TemporaryCatalog()
        let catalog = try await temporary.open()
        for name in ["", ".hidden", "-x", "a/b", "../up", String(repeating: "x", count: 65)] {
            await #expect(throws: StoreError.self, "name \(name)") { _ = try await catalog.addUser(UserDraft(name: name)) }
        }
        await #expect(throws: StoreError.self) { _ = try await catalog.addUser(UserDraft(name: "x", emails: ["not-an-email"])) }
    }

    @Test func pagingByID() async throws {
        let temporary = TemporaryCatalog()
        let catalog = try await temporary.open()
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
