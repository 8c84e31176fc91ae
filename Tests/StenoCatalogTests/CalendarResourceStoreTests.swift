import Foundation
import GRDB
import StenoCore
import Testing

@testable import StenoCatalog
@testable import StenoPostgres
@testable import StenoSQLite

/// The per-resource bookkeeping of the mirror (migration 0004): every resource a source
/// reported keeps its ETag, with or without occurrences in the window, and incremental change
/// sets read only the resources they name.
@Suite("Calendar mirror resources and their ETags")
struct CalendarResourceStoreTests {
    let now = Date(timeIntervalSince1970: 1_790_000_000)
    let calendar = CalendarDescriptor(remoteID: "/cal/work/", name: "Work")

    func occurrence(_ uid: String, at hour: Double) -> EventOccurrence {
        let start = now.addingTimeInterval(hour * 3600)
        return EventOccurrence(
            remoteID: "/cal/work/\(uid).ics", iCalUID: uid, seriesUID: uid, recurrenceID: nil,
            meetingIdentity: MeetingIdentity.iCalendar(uid: uid, recurrenceID: nil), title: uid, start: start,
            end: start.addingTimeInterval(1800))
    }

    func setUp(_ backend: StoreBackend) async throws -> (any CatalogStore & IngestStore, CalendarAccount, OpenedCatalog) {
        let opened = try await backend.open()
        let catalog = opened.store
        let owner = try await catalog.addUser(UserDraft(name: "alice", emails: ["alice@example.com"]))
        let account = try await catalog.addAccount(
            CalendarAccountDraft(provider: .caldav, ownerID: owner.id, displayName: "https://dav.example/"), now: now)
        return (catalog, account, opened)
    }

    @Test(arguments: StoreBackend.available) func aResourceWithoutOccurrencesInTheWindowKeepsItsETag(backend: StoreBackend) async throws {
        let (catalog, account, opened) = try await setUp(backend)
        defer { withExtendedLifetime(opened) {} }
        // An event outside the window: the provider reports the resource with no occurrences.
        let changes = CalendarChangeSet(
            calendar: calendar, scope: .incremental,
            updatedResources: [
                ResourceUpdate(resource: "/cal/work/old.ics", etag: "\"o1\"", occurrences: []),
                ResourceUpdate(resource: "/cal/work/now.ics", etag: "\"n1\"", occurrences: [occurrence("now", at: 1)]),
            ])
        _ = try await catalog.applyCalendarChanges(changes, accountID: account.id, now: now)
        #expect(try await catalog.resourceTags(accountID: account.id, calendarRemoteID: calendar.remoteID)
                == ["/cal/work/old.ics": "\"o1\"", "/cal/work/now.ics": "\"n1\""])

        // A resource whose occurrences all leave the window stays known, with its new ETag.
        let emptied = CalendarChangeSet(
            calendar: calendar, scope: .incremental,
            updatedResources: [ResourceUpdate(resource: "/cal/work/now.ics", etag: "\"n2\"", occurrences: [])])
        #expect(try await catalog.applyCalendarChanges(emptied, accountID: account.id, now: now).deleted == 1)
        #expect(try await catalog.resourceTags(accountID: account.id, calendarRemoteID: calendar.remoteID)["/cal/work/now.ics"] == "\"n2\"")

        // Deleted at the source: forgotten.
        let removal = CalendarChangeSet(calendar: calendar, scope: .incremental, removedResources: ["/cal/work/old.ics"])
        _ = try await catalog.applyCalendarChanges(removal, accountID: account.id, now: now)
        #expect(try await catalog.resourceTags(accountID: account.id, calendarRemoteID: calendar.remoteID) == ["/cal/work/now.ics": "\"n2\""])

        // A complete listing forgets whatever it does not list.
        let complete = CalendarChangeSet(
            calendar: calendar, scope: .complete,
            updatedResources: [ResourceUpdate(resource: "/cal/work/new.ics", etag: nil, occurrences: [occurrence("new", at: 2)])])
        _ = try await catalog.applyCalendarChanges(complete, accountID: account.id, now: now)
        #expect(try await catalog.resourceTags(accountID: account.id, calendarRemoteID: calendar.remoteID) == ["/cal/work/new.ics": nil])
    }

    @Test(arguments: StoreBackend.available) func anIncrementalChangeSetReadsOnlyTheResourcesItNames(backend: StoreBackend) async throws {
        let (catalog, account, opened) = try await setUp(backend)
        defer { withExtendedLifetime(opened) {} }
        let resources = (0..<50).map { ResourceUpdate(resource: "/cal/work/e\($0).ics", etag: "\"1\"", occurrences: [occurrence("e\($0)", at: Double($0))]) }
        _ = try await catalog.applyCalendarChanges(
            CalendarChangeSet(calendar: calendar, scope: .complete, updatedResources: resources), accountID: account.id, now: now)
        let named = ["/cal/work/e3.ics", "/cal/work/gone.ics"]
        let calendarIDs = try await opened.column("SELECT CAST(id AS TEXT) FROM calendars").compactMap { $0.flatMap { Int64($0) } }
        let calendarID = try #require(calendarIDs.first)
        let rows: [String: Int]
        switch catalog {
        case let sqlite as SQLiteCatalog:
            rows = try await sqlite.writer.read { db in
                try MirrorWriter(db: db, now: 0).existingRows(calendarID: calendarID, resources: named).mapValues(\.count)
            }
        case let postgres as PostgresCatalog:
            rows = try await postgres.transaction { tx in
                try await PostgresMirrorWriter(tx: tx, now: 0).existingRows(calendarID: calendarID, resources: named).mapValues(\.count)
            }
        default:
            Issue.record("no mirror writer for \(type(of: catalog))")
            return
        }
        #expect(rows == ["/cal/work/e3.ics": 1])

        // Changing one resource incrementally leaves the others alone.
        var moved = occurrence("e3", at: 100)
        moved.title = "moved"
        let summary = try await catalog.applyCalendarChanges(
            CalendarChangeSet(
                calendar: calendar, scope: .incremental,
                updatedResources: [ResourceUpdate(resource: "/cal/work/e3.ics", etag: "\"2\"", occurrences: [moved])]),
            accountID: account.id, now: now)
        #expect(summary.updated == 1 && summary.deleted == 0 && summary.unchanged == 0)
        #expect(try await catalog.mirroredEvents(accountID: account.id, includeDeleted: false).count == 50)
    }

    @Test func theMigrationRecordsTheResourcesAlreadyMirrored() async throws {
        // A catalog as 0003 left it: one live resource with two occurrences, one tombstoned,
        // one row from before 0002 without a resource.
        let temporary = try await TemporaryCatalog.migrated(
            upTo: "0003_search",
            rows: """
                    \(Self.alice(calendars: [("caldav", "dav", "/c/")]))
                    INSERT INTO events (calendar_id, remote_id, starts_at, ends_at, etag, updated_at, resource)
                        VALUES (1, '/c/a.ics#1', 0, 1, '"a"', 0, '/c/a.ics'), (1, '/c/a.ics#2', 5, 6, '"a"', 0, '/c/a.ics');
                    INSERT INTO events (calendar_id, remote_id, starts_at, ends_at, etag, updated_at, resource, deleted_at)
                        VALUES (1, '/c/b.ics', 0, 1, '"b"', 0, '/c/b.ics', 9);
                    INSERT INTO events (calendar_id, remote_id, starts_at, ends_at, etag, updated_at) VALUES (1, '/c/old.ics', 0, 1, NULL, 0);
                    """)
        let catalog = try await temporary.open()
        #expect(try await catalog.resourceTags(accountID: 1, calendarRemoteID: "/c/") == ["/c/a.ics": "\"a\"", "/c/old.ics": nil])
        // The row without a resource is now found by its remote id, as before.
        let removal = CalendarChangeSet(
            calendar: CalendarDescriptor(remoteID: "/c/", name: "C"), scope: .incremental, removedResources: ["/c/old.ics"])
        #expect(try await catalog.applyCalendarChanges(removal, accountID: 1, now: now).deleted == 1)
    }

    @Test func migration0009ForgetsGraphChangeKeysOnly() async throws {
        let temporary = try await TemporaryCatalog.migrated(
            upTo: "0008_drop_unused_events_time",
            rows: """
                    \(Self.alice(calendars: [("caldav", "dav", "/c/"), ("graph", "outlook", "me")]))
                    INSERT INTO calendar_resources (calendar_id, resource, etag, updated_at)
                        VALUES (1, '/c/a.ics', '"a"', 0), (2, 'AAMkAD=', 'ck', 0);
                    """)
        let catalog = try await temporary.open()
        #expect(try await catalog.resourceTags(accountID: 1, calendarRemoteID: "/c/") == ["/c/a.ics": "\"a\""])
        #expect(try await catalog.resourceTags(accountID: 2, calendarRemoteID: "me").isEmpty)
    }

    @Test func migration0010StoresRepeatedKeysOnce() async throws {
        let temporary = try await TemporaryCatalog.migrated(
            upTo: "0009_graph_resource_tags",
            rows: """
                    \(Self.alice(calendars: [("graph", "outlook", "me")]))
                    INSERT INTO meetings (id, identity, created_at, updated_at) VALUES (1, 'uid-1', 0, 0), (2, 'occurrence-2', 0, 0), (3, 'uid-3', 0, 0);
                    INSERT INTO events (calendar_id, remote_id, ical_uid, series_uid, meeting_id, starts_at, ends_at, updated_at, resource)
                        VALUES (1, 'AAMk-1', 'uid-1', 'uid-1', 1, 0, 1, 0, 'AAMk-1'), (1, 'AAMk-2', 'occurrence-2', 'series-2', 2, 0, 1, 0, 'AAMk-2'),
                               (1, 'file.ics#1', 'uid-3', 'uid-3', 3, 0, 1, 0, 'file.ics');
                    """)
        let catalog = try await temporary.open()
        let stored = try await catalog.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT resource, series_uid FROM events ORDER BY id").map { [$0[0] as String?, $0[1] as String?] }
        }
        #expect(stored == [[nil, nil], [nil, "series-2"], ["file.ics", nil]])
        let events = try await catalog.mirroredEvents(accountID: 1, includeDeleted: false).sorted { $0.id < $1.id }
        #expect(events.map(\.resource) == ["AAMk-1", "AAMk-2", "file.ics"])
        #expect(events.map(\.occurrence.seriesUID) == ["uid-1", "series-2", "uid-3"])
        let indexes = try await catalog.writer.read { db in
            try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE name IN ('events_resource', 'events_series') ORDER BY name")
        }
        #expect(indexes.allSatisfy { $0.contains("IS NOT NULL") } && indexes.count == 2)
    }

    @Test func migration0011IndexesOnlyICalUIDsTheMeetingCannotStandFor() async throws {
        let temporary = try await TemporaryCatalog.migrated(
            upTo: "0010_events_repeated_keys",
            rows: """
                    \(Self.alice(calendars: [("graph", "outlook", "me")]))
                    INSERT INTO meetings (id, identity, created_at, updated_at)
                        VALUES (1, 'uid-1', 0, 0), (2, 'series-2#20261102T080000Z', 0, 0), (3, 'elsewhere', 0, 0);
                    INSERT INTO events (calendar_id, remote_id, ical_uid, series_uid, recurrence_id, meeting_id, starts_at, ends_at, updated_at)
                        VALUES (1, 'AAMk-1', 'uid-1', NULL, NULL, 1, 0, 1, 0), (1, 'AAMk-2', 'occurrence-2', 'series-2', 5, 2, 0, 1, 0),
                               (1, 'AAMk-3', 'uid-3', NULL, NULL, 3, 0, 1, 0);
                    """)
        let catalog = try await temporary.open()
        let stored = try await catalog.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT series_uid FROM events ORDER BY id").map { $0[0] as String? }
        }
        // The third row's meeting is not its iCalUID: it keeps a series UID and its index entry.
        #expect(stored == [nil, "series-2", "uid-3"])
        let events = try await catalog.mirroredEvents(accountID: 1, includeDeleted: false).sorted { $0.id < $1.id }
        #expect(events.map(\.occurrence.seriesUID) == ["uid-1", "series-2", "uid-3"])
        for (uid, remoteID) in [("uid-1", "AAMk-1"), ("occurrence-2", "AAMk-2"), ("uid-3", "AAMk-3")] {
            #expect(try await catalog.identityCandidates(iCalUID: uid, eventID: nil, ownerID: nil).map(\.eventRemoteID) == [remoteID])
        }
        let index = try await catalog.writer.read { db in
            try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'events_ical_uid'")
        }
        #expect(index?.contains("WHERE series_uid IS NOT NULL OR recurrence_id IS NOT NULL") == true)
    }

    @Test func migration0012KeepsTheOrganizerOnTheEventOnly() async throws {
        let temporary = try await TemporaryCatalog.migrated(
            upTo: "0011_events_ical_uid_partial",
            rows: """
                    \(Self.alice(calendars: [("graph", "outlook", "me")]))
                    INSERT INTO meetings (id, identity, created_at, updated_at) VALUES (1, 'uid-1', 0, 0), (2, 'uid-2', 0, 0);
                    INSERT INTO events (id, calendar_id, remote_id, ical_uid, meeting_id, starts_at, ends_at, updated_at, organizer_email, organizer_name)
                        VALUES (1, 1, 'AAMk-1', 'uid-1', 1, 0, 1, 0, 'alice@example.com', 'Alice'), (2, 1, 'AAMk-2', 'uid-2', 2, 0, 1, 0, NULL, NULL);
                    INSERT INTO event_attendees (event_id, email, name, role, response)
                        VALUES (1, 'alice@example.com', 'Alice', 'organizer', 'tentative'), (1, 'bob@example.com', 'Bob', 'required', 'accepted'),
                               (2, 'carol@example.com', 'Carol', 'required', 'declined');
                    """)
        let catalog = try await temporary.open()
        let rows = try await catalog.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT event_id, email FROM event_attendees ORDER BY 1, 2").map { "\($0[0] as Int64) \($0[1] as String)" }
        }
        #expect(rows == ["1 bob@example.com", "2 carol@example.com"])
        let events = try await catalog.mirroredEvents(accountID: 1, includeDeleted: false).sorted { $0.id < $1.id }
        #expect(events.map { $0.occurrence.attendees.map(\.email) } == [["alice@example.com", "bob@example.com"], ["carol@example.com"]])
        #expect(events[0].occurrence.organizer?.response == .tentative && events[0].occurrence.attendees[0].role == .organizer)
    }

    /// Rows for the migration tests: user 1 (alice) with account n and calendar n for the
    /// n-th (provider, account name, calendar remote id).
    static func alice(calendars: [(provider: String, account: String, remoteID: String)]) -> String {
        var rows = "INSERT INTO users (id, name, created_at, updated_at) VALUES (1, 'alice', 0, 0);\n"
        for (index, calendar) in calendars.enumerated() {
            let id = index + 1
            rows += """
                INSERT INTO calendar_accounts (id, provider, owner_id, display_name, created_at, updated_at)
                    VALUES (\(id), '\(calendar.provider)', 1, '\(calendar.account)', 0, 0);
                INSERT INTO calendars (id, account_id, remote_id, name, created_at, updated_at)
                    VALUES (\(id), \(id), '\(calendar.remoteID)', 'Calendar', 0, 0);

                """
        }
        return rows
    }
}
