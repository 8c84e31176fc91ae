import Foundation
import GRDB
import Testing

@testable import StenoCatalog
@testable import StenoSQLite

/// Migration 0007 rebuilds the hot tables so their enumeration CHECKs are equality chains
/// (an `IN` list of more than two values made SQLite build a temporary b-tree per written row).
@Suite("Enumeration checks (migration 0007)")
struct EnumerationCheckMigrationTests {
    /// Rows of every rebuilt table, linked to each other, as 0006 left them.
    static let rowsBefore = """
        INSERT INTO users (id, name, created_at, updated_at) VALUES (1, 'alice', 0, 0);
        INSERT INTO calendar_accounts (id, provider, owner_id, display_name, created_at, updated_at)
            VALUES (1, 'caldav', 1, 'dav', 0, 0);
        INSERT INTO calendars (id, account_id, remote_id, name, created_at, updated_at) VALUES (1, 1, '/c/', 'C', 0, 0);
        INSERT INTO meetings (id, identity, title, starts_at, ends_at, created_at, updated_at) VALUES (7, 'uid-1', 'Sync', 0, 60, 0, 0);
        INSERT INTO events (id, calendar_id, remote_id, ical_uid, meeting_id, title, starts_at, ends_at, status, updated_at, resource, fingerprint)
            VALUES (3, 1, '/c/a.ics', 'uid-1', 7, 'Sync', 0, 60, 'tentative', 0, '/c/a.ics', 42);
        INSERT INTO event_attendees (event_id, email, name, role, response) VALUES (3, 'bob@example.com', 'Bob', 'optional', 'declined');
        INSERT INTO recordings (id, content_hash, owner_id, size, recorded_at, recorded_at_source, title, status, created_at, updated_at)
            VALUES (5, 'abc', 1, 10, 0, 'file-name', 'standup', 'ready', 0, 0);
        INSERT INTO recording_paths (path, recording_id, first_seen_at, last_seen_at) VALUES ('alice/a.wav', 5, 0, 0);
        INSERT INTO links (recording_id, meeting_id, event_id, method, score, state, updated_at) VALUES (5, 7, 3, 'icaluid', 1, 'linked', 0);
        INSERT INTO link_attendees (recording_id, email, role, response) VALUES (5, 'bob@example.com', 'resource', 'tentative');
        INSERT INTO jobs (id, kind, state, run_at, unique_key, created_at, updated_at) VALUES (9, 'ingest', 'queued', 0, 'ingest:a', 0, 0);
        """

    @Test func rowsIndexesTriggersAndForeignKeysSurviveTheRebuild() async throws {
        let temporary = TemporaryCatalog()
        try FileManager.default.createDirectory(atPath: temporary.folder, withIntermediateDirectories: true)
        let queue = try DatabaseQueue(path: temporary.path)
        try SchemaMigrations.migrator().migrate(queue, upTo: "0006_events_organizer_time")
        let schemaBefore = try await queue.read { db in try Self.schemaObjects(db) }
        try await queue.write { db in try db.execute(sql: Self.rowsBefore) }
        try SchemaMigrations.migrator().migrate(queue, upTo: "0007_enumeration_checks")
        try await queue.write { db in
            #expect(try Self.schemaObjects(db) == schemaBefore, "every index and trigger is back under its name")
            #expect(try String.fetchOne(db, sql: "SELECT status FROM events WHERE id = 3") == "tentative")
            #expect(try Int64.fetchOne(db, sql: "SELECT fingerprint FROM events WHERE id = 3") == 42)
            #expect(try String.fetchOne(db, sql: "SELECT role || '/' || response FROM event_attendees WHERE event_id = 3") == "optional/declined")
            #expect(try String.fetchOne(db, sql: "SELECT recorded_at_source FROM recordings WHERE id = 5") == "file-name")
            #expect(try String.fetchOne(db, sql: "SELECT method || '/' || state FROM links WHERE recording_id = 5") == "icaluid/linked")
            #expect(try String.fetchOne(db, sql: "SELECT role FROM link_attendees WHERE recording_id = 5") == "resource")
            #expect(try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").isEmpty)
            #expect(try String.fetchOne(db, sql: "PRAGMA integrity_check") == "ok")

            // The triggers still keep the search index: a retitled recording is found by its new title.
            try db.execute(sql: "UPDATE recordings SET title = 'retrospective' WHERE id = 5")
            #expect(try Int64.fetchOne(db, sql: "SELECT rowid FROM recording_search WHERE recording_search MATCH 'retrospective'") == 5)
            // And the foreign keys still act: deleting the event clears the link's event and drops its attendees.
            try db.execute(sql: "DELETE FROM events WHERE id = 3")
            #expect(try Int64.fetchOne(db, sql: "SELECT count(*) FROM event_attendees") == 0)
            #expect(try Int64?.fetchOne(db, sql: "SELECT event_id FROM links WHERE recording_id = 5") == .some(nil))
        }
    }

    @Test(arguments: [
        "INSERT INTO event_attendees (event_id, email, role) VALUES (3, 'x@example.com', 'speaker')",
        "INSERT INTO event_attendees (event_id, email, response) VALUES (3, 'x@example.com', 'maybe')",
        "UPDATE events SET status = 'postponed' WHERE id = 3",
        "UPDATE recordings SET status = 'done' WHERE id = 5",
        "UPDATE recordings SET recorded_at_source = 'guess' WHERE id = 5",
        "UPDATE links SET method = 'magic' WHERE recording_id = 5",
        "UPDATE links SET state = 'orphan' WHERE recording_id = 5",
        "INSERT INTO link_attendees (recording_id, email, role) VALUES (5, 'x@example.com', 'chair')",
        "UPDATE jobs SET state = 'paused' WHERE id = 9",
    ])
    func valuesOutsideAnEnumerationAreStillRefused(statement: String) async throws {
        let temporary = TemporaryCatalog()
        let catalog = try await temporary.open()
        try await catalog.writer.write { db in try db.execute(sql: Self.rowsBefore) }
        await #expect {
            try await catalog.writer.write { db in try db.execute(sql: statement) }
        } throws: { error in
            (error as? DatabaseError)?.resultCode == .SQLITE_CONSTRAINT
        }
    }

    /// The cost this migration removes, checked in SQLite's own program for each hot write
    /// (not by timing): no temporary b-tree is opened to test a value.
    @Test(arguments: [
        "INSERT INTO event_attendees (event_id, email, name, role, response) VALUES (3, 'x@example.com', 'X', 'required', 'none')",
        "INSERT INTO link_attendees (recording_id, email, name, role, response) VALUES (5, 'x@example.com', 'X', 'required', 'none')",
        "UPDATE events SET status = 'cancelled', is_all_day = 1 WHERE id = 3",
        "UPDATE recordings SET status = 'ready', recorded_at_source = 'mtime' WHERE id = 5",
        "UPDATE links SET state = 'linked', method = 'overlap' WHERE recording_id = 5",
    ])
    func hotWritesBuildNoTemporaryTable(statement: String) async throws {
        let temporary = TemporaryCatalog()
        let catalog = try await temporary.open()
        let program = try await catalog.writer.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN " + statement).map { $0["opcode"] as String }
        }
        #expect(!program.contains("OpenEphemeral"), "\(statement)")
    }

    /// Indexes and triggers of the rebuilt tables, by name, with their SQL.
    static func schemaObjects(_ db: Database) throws -> [String: String] {
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT name, sql FROM sqlite_master WHERE type IN ('index', 'trigger') AND sql IS NOT NULL
                AND tbl_name IN ('events', 'event_attendees', 'recordings', 'links', 'link_attendees', 'jobs')
                """)
        return Dictionary(uniqueKeysWithValues: rows.map { ($0["name"], $0["sql"]) })
    }
}
