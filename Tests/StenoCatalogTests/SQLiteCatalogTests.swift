import Foundation
import GRDB
import StenoCore
import Testing

@testable import StenoCatalog
@testable import StenoSQLite

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
