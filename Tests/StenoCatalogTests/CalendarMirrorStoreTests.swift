import Foundation
import GRDB
import StenoCore
import Testing

import StenoPostgres
@testable import StenoCatalog
@testable import StenoSQLite

@Suite("Calendar accounts and the event mirror")
struct CalendarMirrorStoreTests {
    let now = Date(timeIntervalSince1970: 1_790_000_000)
    let calendar = CalendarDescriptor(remoteID: "/cal/work/", name: "Work")

    func occurrence(_ uid: String, at hour: Double, title: String = "Standup", recurrence: Date? = nil, attendees: [Attendee] = []) -> EventOccurrence {
        let start = Date(timeIntervalSince1970: 1_790_000_000 + hour * 3600)
        let resource = "/cal/work/\(uid).ics"
        return EventOccurrence(
            remoteID: recurrence.map { "\(resource)#\(MeetingIdentity.basicUTC($0))" } ?? resource, iCalUID: uid, seriesUID: uid,
            recurrenceID: recurrence, meetingIdentity: MeetingIdentity.iCalendar(uid: uid, recurrenceID: recurrence), title: title,
            start: start, end: start.addingTimeInterval(1800),
            organizer: Attendee(email: "Alice@Example.com", name: "Alice", role: .organizer, response: .accepted),
            attendees: attendees)
    }

    func setUp(_ backend: StoreBackend) async throws -> (any CatalogStore & IngestStore, CalendarAccount, OpenedCatalog) {
        let opened = try await backend.open()
        let catalog = opened.store
        let alice = try await catalog.addUser(UserDraft(name: "alice", emails: ["alice@example.com"]))
        let account = try await catalog.addAccount(
            CalendarAccountDraft(provider: .caldav, ownerID: alice.id, displayName: "https://dav.example/", settings: ["user": "alice"],
                                 sealedSecret: Data([1, 2, 3])), now: now)
        return (catalog, account, opened)
    }

    @Test(arguments: StoreBackend.available) func accountsKeepSettingsAndSecretsApart(backend: StoreBackend) async throws {
        let (catalog, account, opened) = try await setUp(backend)
        defer { withExtendedLifetime(opened) {} }
        #expect(account.hasSecret && account.settings == ["user": "alice"] && account.health == .ok)
        #expect(try await catalog.sealedSecret(accountID: account.id) == Data([1, 2, 3]))
        await #expect(throws: StoreError.self) {
            _ = try await catalog.addAccount(
                CalendarAccountDraft(provider: .caldav, ownerID: account.ownerID, displayName: "https://dav.example/"), now: now)
        }
        try await catalog.recordSyncResult(
            accountID: account.id, .failed(at: now, message: "HTTP 401", health: .needsCredentials, nextSyncAt: nil))
        let failed = try await catalog.account(id: account.id)
        #expect(failed.health == .needsCredentials && failed.lastError == "HTTP 401")
        try await catalog.recordSyncResult(accountID: account.id, .succeeded(at: now, nextSyncAt: now.addingTimeInterval(300)))
        #expect(try await catalog.account(id: account.id).health == .ok)
        #expect(try await catalog.accountsDue(at: now).isEmpty)
        #expect(try await catalog.accountsDue(at: now.addingTimeInterval(300)) == [account.id])
        _ = try await catalog.removeAccount(id: account.id)
        await #expect(throws: StoreError.self) { _ = try await catalog.account(id: account.id) }
    }

    @Test(arguments: StoreBackend.available) func accountStateSettingsAndSecretsChangeInPlace(backend: StoreBackend) async throws {
        let (catalog, account, opened) = try await setUp(backend)
        defer { withExtendedLifetime(opened) {} }
        try await catalog.updateSettings(accountID: account.id, settings: ["user": "alice", "url": "https://dav.example/"])
        try await catalog.saveAccountState(accountID: account.id, syncState: "token", capabilities: nil)
        try await catalog.saveAccountState(accountID: account.id, syncState: nil, capabilities: "{\"sync\":true}")
        let saved = try await catalog.account(id: account.id)
        #expect(saved.settings == ["user": "alice", "url": "https://dav.example/"])
        #expect(saved.syncState == "token" && saved.capabilities == "{\"sync\":true}")
        try await catalog.replaceSecret(accountID: account.id, sealed: Data([9, 9]))
        #expect(try await catalog.sealedSecret(accountID: account.id) == Data([9, 9]))
        #expect(try await catalog.accountsWithSealedSecrets() == [account.id])
        #expect(try await catalog.forgetSealedSecrets(reason: "the key is gone", now: now) == 1)
        let forgotten = try await catalog.account(id: account.id)
        #expect(!forgotten.hasSecret && forgotten.health == .needsCredentials && forgotten.lastError == "the key is gone")
        #expect(try await catalog.sealedSecret(accountID: account.id) == nil)
        #expect(try await catalog.accountsWithSealedSecrets().isEmpty)
        await #expect(throws: StoreError.notFound(entity: "calendar account", reference: "999")) {
            try await catalog.updateSettings(accountID: 999, settings: [:])
        }
        await #expect(throws: StoreError.notFound(entity: "user", reference: "999")) {
            _ = try await catalog.addAccount(CalendarAccountDraft(provider: .ics, ownerID: 999, displayName: "x"), now: now)
        }
    }

    @Test(arguments: StoreBackend.available) func aRenewedAccountKeepsItsEventsUnderTheMovedCalendar(backend: StoreBackend) async throws {
        let (catalog, account, opened) = try await setUp(backend)
        defer { withExtendedLifetime(opened) {} }
        let planning = occurrence("planning", at: 2, title: "Planning")
        _ = try await catalog.applyCalendarChanges(
            CalendarChangeSet(
                calendar: calendar, scope: .incremental,
                updatedResources: [ResourceUpdate(resource: planning.remoteID, etag: "\"7\"", occurrences: [planning])]),
            accountID: account.id, now: now)
        let before = try await catalog.mirroredEvents(accountID: account.id, includeDeleted: false)
        let renewed = try await catalog.renewAccount(
            id: account.id, displayName: "bob at https://dav.example/", settings: ["user": "bob"], sealedSecret: Data([4]),
            movedCalendar: CalendarMove(from: calendar.remoteID, to: "/cal/moved/"), now: now)
        #expect(renewed.displayName == "bob at https://dav.example/" && renewed.settings == ["user": "bob"] && renewed.hasSecret)
        #expect(try await catalog.sealedSecret(accountID: account.id) == Data([4]))
        #expect(try await catalog.calendars(accountID: account.id, ownerID: nil).map(\.remoteID) == ["/cal/moved/"])
        #expect(try await catalog.mirroredEvents(accountID: account.id, includeDeleted: false) == before)
        let other = try await catalog.addAccount(
            CalendarAccountDraft(provider: .caldav, ownerID: account.ownerID, displayName: "https://other.example/"), now: now)
        await #expect(throws: StoreError.self) {
            _ = try await catalog.renewAccount(
                id: other.id, displayName: renewed.displayName, settings: [:], sealedSecret: nil, movedCalendar: nil, now: now)
        }
        await #expect(throws: StoreError.notFound(entity: "calendar account", reference: "999")) {
            _ = try await catalog.renewAccount(id: 999, displayName: "x", settings: [:], sealedSecret: nil, movedCalendar: nil, now: now)
        }
    }

    @Test(arguments: StoreBackend.available) func eventSourcesNameWhereEventsLive(backend: StoreBackend) async throws {
        let (catalog, account, opened) = try await setUp(backend)
        defer { withExtendedLifetime(opened) {} }
        let planning = occurrence("planning", at: 2, title: "Planning")
        let changes = CalendarChangeSet(
            calendar: calendar, scope: .incremental,
            updatedResources: [ResourceUpdate(resource: planning.remoteID, etag: "\"7\"", occurrences: [planning])])
        _ = try await catalog.applyCalendarChanges(changes, accountID: account.id, now: now)
        let event = try #require(try await catalog.mirroredEvents(accountID: account.id, includeDeleted: false).first)
        let sources = try await catalog.eventSources(eventIDs: [event.id, 999_999])
        let source = try #require(sources[event.id])
        #expect(sources.count == 1)
        #expect(source.accountID == account.id && source.ownerID == account.ownerID && source.provider == .caldav)
        #expect(source.calendarRemoteID == calendar.remoteID && source.calendarName == "Work" && source.resource == planning.remoteID)
        #expect(source.iCalUID == "planning" && source.title == "Planning" && source.start == planning.start && source.etag == "\"7\"")
        #expect(source.ownerOrganizes && !source.isDeleted && source.meetingID == event.meetingID)
        let meetingID = try #require(event.meetingID)
        #expect(try await catalog.eventSources(meetingID: meetingID).map(\.eventID) == [event.id])
        let removal = CalendarChangeSet(calendar: calendar, scope: .incremental, removedResources: [planning.remoteID])
        _ = try await catalog.applyCalendarChanges(removal, accountID: account.id, now: now)
        #expect(try await catalog.eventSources(meetingID: meetingID).isEmpty)
        let tombstone = try await catalog.eventSource(accountID: account.id, calendarRemoteID: calendar.remoteID, remoteID: planning.remoteID)
        #expect(tombstone?.eventID == event.id && tombstone?.isDeleted == true)
        #expect(try await catalog.eventSource(accountID: account.id, calendarRemoteID: calendar.remoteID, remoteID: "nothing") == nil)
    }

    @Test(arguments: StoreBackend.available) func resourcesAreReplacedAsAWholeAndUnchangedRowsAreNotRewritten(backend: StoreBackend) async throws {
        let (catalog, account, opened) = try await setUp(backend)
        defer { withExtendedLifetime(opened) {} }
        let series = [0.0, 24, 48].map { occurrence("weekly", at: $0, recurrence: Date(timeIntervalSince1970: 1_790_000_000 + $0 * 3600)) }
        let single = occurrence("single", at: 5, attendees: [Attendee(email: "bob@example.com", name: "Bøb 東京", response: .declined)])
        var first = CalendarChangeSet(calendar: calendar, scope: .complete, syncState: "token-1")
        first.updatedResources = [
            ResourceUpdate(resource: "/cal/work/weekly.ics", etag: "\"1\"", occurrences: series),
            ResourceUpdate(resource: "/cal/work/single.ics", etag: "\"1\"", occurrences: [single]),
        ]
        let applied = try await catalog.applyCalendarChanges(first, accountID: account.id, now: now)
        #expect(applied.inserted == 4 && applied.touchedMeetingIDs.count == 4)
        let calendars = try await catalog.calendars(accountID: account.id, ownerID: nil)
        #expect(calendars.count == 1 && calendars[0].syncState == "token-1" && calendars[0].eventCount == 4)
        let events = try await catalog.mirroredEvents(accountID: account.id, includeDeleted: false)
        let mirroredSingle = try #require(events.first { $0.occurrence.iCalUID == "single" })
        // The organizer heads the attendee list of a mirrored event (Attendee.mirroredList).
        #expect(mirroredSingle.occurrence.attendees.map(\.email) == ["alice@example.com", "bob@example.com"])
        #expect(mirroredSingle.occurrence.organizer?.email == "alice@example.com")
        #expect(mirroredSingle.occurrence.attendees.last?.name == "Bøb 東京")

        // The same data again: nothing written.
        let again = try await catalog.applyCalendarChanges(first, accountID: account.id, now: now)
        #expect(again.unchanged == 4 && again.inserted == 0 && again.updated == 0 && again.touchedMeetingIDs.isEmpty)

        // An EXDATE removes the second occurrence; the title of the third changes.
        var third = series[2]
        third.title = "Planning"
        let incremental = CalendarChangeSet(
            calendar: calendar, scope: .incremental,
            updatedResources: [ResourceUpdate(resource: "/cal/work/weekly.ics", etag: "\"2\"", occurrences: [series[0], third])],
            syncState: "token-2")
        let changed = try await catalog.applyCalendarChanges(incremental, accountID: account.id, now: now)
        #expect(changed.updated == 2 && changed.deleted == 1 && changed.inserted == 0)
        #expect(try await catalog.calendars(accountID: account.id, ownerID: nil)[0].syncState == "token-2")
        #expect(try await catalog.resourceTags(accountID: account.id, calendarRemoteID: calendar.remoteID)
                == ["/cal/work/weekly.ics": "\"2\"", "/cal/work/single.ics": "\"1\""])

        // A removed resource is tombstoned, kept with its meeting.
        let removal = CalendarChangeSet(calendar: calendar, scope: .incremental, removedResources: ["/cal/work/single.ics"])
        #expect(try await catalog.applyCalendarChanges(removal, accountID: account.id, now: now).deleted == 1)
        let all = try await catalog.mirroredEvents(accountID: account.id, includeDeleted: true)
        let gone = try #require(all.first { $0.occurrence.iCalUID == "single" })
        #expect(gone.deletedAt != nil && gone.meetingID != nil)

        // A complete listing without the series tombstones it; bringing it back revives the rows.
        let empty = CalendarChangeSet(calendar: calendar, scope: .complete)
        #expect(try await catalog.applyCalendarChanges(empty, accountID: account.id, now: now).deleted == 2)
        let revived = try await catalog.applyCalendarChanges(incremental, accountID: account.id, now: now)
        #expect(revived.inserted == 2)
        let live = try await catalog.mirroredEvents(accountID: account.id, includeDeleted: false)
        #expect(live.map(\.occurrence.title) == ["Standup", "Planning"])
        #expect(Set(all.map(\.id)).isSuperset(of: live.map(\.id)))
    }

    @Test(arguments: StoreBackend.available) func occurrencesOutsideTheWindowOfAChangeSetAreKept(backend: StoreBackend) async throws {
        let (catalog, account, opened) = try await setUp(backend)
        defer { withExtendedLifetime(opened) {} }
        let series = [0.0, 24, 48].map { occurrence("weekly", at: $0, recurrence: Date(timeIntervalSince1970: 1_790_000_000 + $0 * 3600)) }
        _ = try await catalog.applyCalendarChanges(
            CalendarChangeSet(calendar: calendar, scope: .complete, updatedResources: [ResourceUpdate(resource: "/cal/work/weekly.ics", occurrences: series)]),
            accountID: account.id, now: now)
        // The window slid past the first occurrence and the series changed: expanded again, the
        // source lists only the later two (one of them renamed). The first is kept, not deleted.
        var renamed = series[2]
        renamed.title = "Planning"
        let window = DateInterval(start: series[1].start.addingTimeInterval(-3600), duration: 30 * 86_400)
        let changed = try await catalog.applyCalendarChanges(
            CalendarChangeSet(
                calendar: calendar, scope: .incremental,
                updatedResources: [ResourceUpdate(resource: "/cal/work/weekly.ics", etag: "\"2\"", occurrences: [series[1], renamed])],
                window: window),
            accountID: account.id, now: now)
        #expect(changed.deleted == 0 && changed.updated == 2)
        #expect(try await catalog.mirroredEvents(accountID: account.id, includeDeleted: false).map(\.occurrence.title) == ["Standup", "Standup", "Planning"])
        // Within the window an occurrence the source stops listing is deleted as before.
        let dropped = try await catalog.applyCalendarChanges(
            CalendarChangeSet(
                calendar: calendar, scope: .incremental,
                updatedResources: [ResourceUpdate(resource: "/cal/work/weekly.ics", etag: "\"3\"", occurrences: [renamed])], window: window),
            accountID: account.id, now: now)
        #expect(dropped.deleted == 1)
        #expect(try await catalog.resources(accountID: account.id, calendarRemoteID: calendar.remoteID, overlapping: window) == ["/cal/work/weekly.ics"])
        let before = DateInterval(start: series[0].start.addingTimeInterval(-86_400), duration: 3600)
        #expect(try await catalog.resources(accountID: account.id, calendarRemoteID: calendar.remoteID, overlapping: before).isEmpty)
    }

    /// Rows written by upserts that updated (no rowid inserted) are found again by their keys:
    /// the event keeps its row and meeting, its attendees are replaced, and a new occurrence
    /// after it gets a row of its own.
    @Test(arguments: StoreBackend.available) func anUpdatedEventKeepsItsRowAndMeeting(backend: StoreBackend) async throws {
        let (catalog, account, opened) = try await setUp(backend)
        defer { withExtendedLifetime(opened) {} }
        let bob = Attendee(email: "bob@example.com", name: "Bob")
        let carol = Attendee(email: "carol@example.com", name: "Carol", role: .optional)
        func apply(_ occurrences: [EventOccurrence]) async throws {
            let updates = occurrences.map { ResourceUpdate(resource: $0.remoteID, etag: $0.title, occurrences: [$0]) }
            _ = try await catalog.applyCalendarChanges(
                CalendarChangeSet(calendar: calendar, scope: .incremental, updatedResources: updates), accountID: account.id, now: now)
        }
        try await apply([occurrence("a", at: 1, attendees: [bob])])
        let before = try await catalog.mirroredEvents(accountID: account.id, includeDeleted: false)
        try await apply([occurrence("a", at: 2, title: "Standup (moved)", attendees: [carol]), occurrence("b", at: 3)])
        let after = try await catalog.mirroredEvents(accountID: account.id, includeDeleted: false)
        #expect(after.count == 2)
        #expect(after[0].id == before[0].id && after[0].meetingID == before[0].meetingID)
        #expect(after[0].occurrence.title == "Standup (moved)")
        #expect(after[0].occurrence.attendees.map(\.email) == ["alice@example.com", "carol@example.com"])
        #expect(after[1].id != after[0].id && after[1].meetingID != after[0].meetingID && after[1].meetingID != nil)
    }

    @Test(arguments: StoreBackend.available) func changeSetsThatKeepNoResourceTagsStillMirrorTheirEvents(backend: StoreBackend) async throws {
        let (catalog, account, opened) = try await setUp(backend)
        defer { withExtendedLifetime(opened) {} }
        let event = occurrence("graph-like", at: 1)
        var changes = CalendarChangeSet(
            calendar: calendar, scope: .incremental, updatedResources: [ResourceUpdate(resource: event.remoteID, etag: "ck-1", occurrences: [event])],
            keepsResourceTags: false)
        #expect(try await catalog.applyCalendarChanges(changes, accountID: account.id, now: now).inserted == 1)
        #expect(try await catalog.resourceTags(accountID: account.id, calendarRemoteID: calendar.remoteID).isEmpty)
        // The change key still tells an unchanged event from a changed one.
        #expect(try await catalog.applyCalendarChanges(changes, accountID: account.id, now: now).unchanged == 1)
        changes.updatedResources[0].etag = "ck-2"
        #expect(try await catalog.applyCalendarChanges(changes, accountID: account.id, now: now).updated == 1)
        changes.updatedResources = []
        changes.removedResources = [event.remoteID]
        #expect(try await catalog.applyCalendarChanges(changes, accountID: account.id, now: now).deleted == 1)
    }

    /// A Graph event is its own resource and a single event its own series: neither is stored
    /// twice (migration 0010), yet reads, identity lookups and incremental change sets see them.
    @Test(arguments: StoreBackend.available) func repeatedKeysAreStoredOnceAndStillFound(backend: StoreBackend) async throws {
        let (catalog, account, opened) = try await setUp(backend)
        defer { withExtendedLifetime(opened) {} }
        let single = EventOccurrence(
            remoteID: "AAMk-1", iCalUID: "uid-1", seriesUID: "uid-1", meetingIdentity: "uid-1", title: "One-off",
            start: now, end: now.addingTimeInterval(1800))
        let occurrence = EventOccurrence(
            remoteID: "AAMk-2", iCalUID: "occurrence-2", seriesUID: "series-2", recurrenceID: now, meetingIdentity: "occurrence-2",
            title: "Weekly", start: now, end: now.addingTimeInterval(1800))
        let changes = CalendarChangeSet(
            calendar: calendar, scope: .incremental,
            updatedResources: [single, occurrence].map { ResourceUpdate(resource: $0.remoteID, etag: "ck", occurrences: [$0]) },
            keepsResourceTags: false)
        #expect(try await catalog.applyCalendarChanges(changes, accountID: account.id, now: now).inserted == 2)
        let stored = try await opened.rows("SELECT resource, series_uid FROM events ORDER BY remote_id")
        #expect(stored == [[nil, nil], [nil, "series-2"]])
        let events = try await catalog.mirroredEvents(accountID: account.id, includeDeleted: false).sorted { $0.occurrence.remoteID < $1.occurrence.remoteID }
        #expect(events.map(\.resource) == ["AAMk-1", "AAMk-2"])
        #expect(events.map(\.occurrence.seriesUID) == ["uid-1", "series-2"])
        let window = DateInterval(start: now.addingTimeInterval(-60), duration: 3600)
        #expect(try await catalog.resources(accountID: account.id, calendarRemoteID: calendar.remoteID, overlapping: window) == ["AAMk-1", "AAMk-2"])
        #expect(try await catalog.identityCandidates(iCalUID: "series-2", eventID: nil, ownerID: nil).map(\.eventRemoteID) == ["AAMk-2"])
        #expect(try await catalog.identityCandidates(iCalUID: "uid-1", eventID: nil, ownerID: nil).map(\.seriesUID) == ["uid-1"])
        if let sqlite = catalog as? SQLiteCatalog {
            // The series lookup still goes through its (now partial) index.
            let plan = try await sqlite.writer.read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT id FROM events WHERE series_uid = 'series-2'").map { $0["detail"] as String }
            }
            #expect(plan.contains { $0.contains("events_series") })
        }
        // An incremental change set finds them by resource.
        #expect(try await catalog.applyCalendarChanges(changes, accountID: account.id, now: now).unchanged == 2)
        var removal = changes
        removal.updatedResources = []
        removal.removedResources = ["AAMk-1"]
        #expect(try await catalog.applyCalendarChanges(removal, accountID: account.id, now: now).deleted == 1)
    }

    /// A recording's iCalUID or event id hint finds its event by any of its four keys, through
    /// indexes only: the lookup once read every event of the catalog for each hinted recording.
    /// A single event is out of the iCalUID index (0011) and found through its meeting; one
    /// whose meeting identity is not its iCalUID stays in the index.
    @Test func identityLookupsFindEachKeyThroughIndexes() async throws {
        let (store, account, opened) = try await setUp(.sqlite)
        defer { withExtendedLifetime(opened) {} }
        let catalog = try #require(store as? SQLiteCatalog)
        let weekly = occurrence("weekly", at: 24, recurrence: Date(timeIntervalSince1970: 1_790_000_000 + 24 * 3600))
        let single = occurrence("single", at: 30)
        var elsewhere = occurrence("elsewhere", at: 36)
        elsewhere.meetingIdentity = "another-identity"
        var changes = CalendarChangeSet(calendar: calendar, scope: .complete)
        changes.updatedResources = [weekly, single, elsewhere].map { ResourceUpdate(resource: $0.remoteID, occurrences: [$0]) }
        _ = try await catalog.applyCalendarChanges(changes, accountID: account.id, now: now)
        let lookups: [(String?, String?, EventOccurrence)] = [
            ("weekly", nil, weekly), (weekly.meetingIdentity, nil, weekly), (nil, weekly.remoteID, weekly),
            ("single", nil, single), ("elsewhere", nil, elsewhere), ("another-identity", nil, elsewhere),
        ]
        for (uid, eventID, expected) in lookups {
            let found = try await catalog.identityCandidates(iCalUID: uid, eventID: eventID, ownerID: account.ownerID)
            #expect(found.map(\.eventRemoteID) == [expected.remoteID], "by \(uid ?? eventID ?? "")")
        }
        #expect(try await catalog.identityCandidates(iCalUID: "other", eventID: "other", ownerID: account.ownerID).isEmpty)
        let indexed = try await catalog.writer.read { db in
            try String.fetchAll(db, sql: "SELECT ical_uid FROM events INDEXED BY events_ical_uid WHERE \(StoredEventKeys.iCalUIDIndexed) ORDER BY 1")
        }
        #expect(indexed == ["elsewhere", "weekly"])
        let plan = try await catalog.writer.read { db in
            try Row.fetchAll(
                db, sql: "EXPLAIN QUERY PLAN \(SQLiteCatalog.candidateSelect) WHERE e.deleted_at IS NULL AND e.id IN (\(SQLiteCatalog.eventsByIdentity))",
                arguments: [1, "weekly", "x"]
            ).map { $0["detail"] as String }
        }
        #expect(!plan.contains { $0.hasPrefix("SCAN") }, "\(plan)")
        #expect(plan.contains { $0.contains("events_ical_uid") }, "\(plan)")
    }

    /// A meeting already indexed is re-indexed in place (its old row goes); a new one is added.
    @Test(arguments: StoreBackend.available) func searchFollowsRenamesAndNewMeetings(backend: StoreBackend) async throws {
        let (catalog, account, opened) = try await setUp(backend)
        defer { withExtendedLifetime(opened) {} }
        func apply(_ occurrences: [EventOccurrence]) async throws {
            let updates = occurrences.map { ResourceUpdate(resource: $0.remoteID, etag: $0.title, occurrences: [$0]) }
            _ = try await catalog.applyCalendarChanges(
                CalendarChangeSet(calendar: calendar, scope: .incremental, updatedResources: updates), accountID: account.id, now: now)
        }
        try await apply([occurrence("a", at: 1, title: "Budget review"), occurrence("b", at: 2, title: "Hiring sync")])
        try await apply([occurrence("a", at: 1, title: "Roadmap review"), occurrence("c", at: 3, title: "Budget planning")])
        func titles(_ text: String) async throws -> [String] {
            try await catalog.search(text, visibleTo: nil, offset: 0, limit: 10).map(\.title).sorted()
        }
        #expect(try await titles("budget") == ["Budget planning"])
        #expect(try await titles("review") == ["Roadmap review"])
        #expect(try await titles("hiring") == ["Hiring sync"])
        #expect(try await opened.column("SELECT CAST(count(*) AS TEXT) FROM meeting_search") == ["3"])
    }

    /// The organizer is kept on the events row only (migration 0012), yet every reader sees
    /// them first among the attendees, with their own answer.
    @Test(arguments: StoreBackend.available) func theOrganizerIsStoredOnceAndStillHeadsTheAttendees(backend: StoreBackend) async throws {
        let (catalog, account, opened) = try await setUp(backend)
        defer { withExtendedLifetime(opened) {} }
        let organizer = Attendee(email: "alice@example.com", name: "Alice Archer", role: .organizer, response: .tentative)
        let bob = Attendee(email: "bob@example.com", name: "Bob", response: .accepted)
        var planning = occurrence("planning", at: 5, title: "Planning", attendees: [organizer, bob])
        planning.organizer = organizer
        let changes = CalendarChangeSet(
            calendar: calendar, scope: .incremental, updatedResources: [ResourceUpdate(resource: planning.remoteID, occurrences: [planning])])
        _ = try await catalog.applyCalendarChanges(changes, accountID: account.id, now: now)
        let rows = try await opened.column("SELECT email FROM event_attendees")
        #expect(rows == ["bob@example.com"])
        let mirrored = try #require(try await catalog.mirroredEvents(accountID: account.id, includeDeleted: false).first)
        #expect(mirrored.occurrence.attendees == planning.attendees && mirrored.occurrence.organizer == organizer)
        let meetingID = try #require(mirrored.meetingID)
        let detail = try await catalog.meeting(id: meetingID, visibleTo: nil)
        #expect(detail.attendees.map(\.email) == ["alice@example.com", "bob@example.com"] && detail.attendees[0].response == .tentative)
        #expect(detail.meeting.organizer == organizer && detail.meeting.attendeeCount == 2)
        #expect(try await catalog.search("archer", visibleTo: nil, offset: 0, limit: 10).map(\.title) == ["Planning"])
        // Unchanged, it is not rewritten: the fingerprint covers the organizer's answer too.
        #expect(try await catalog.applyCalendarChanges(changes, accountID: account.id, now: now).unchanged == 1)
    }

    @Test(arguments: StoreBackend.available) func theSameOccurrenceInTwoAccountsIsOneMeeting(backend: StoreBackend) async throws {
        let (catalog, account, opened) = try await setUp(backend)
        defer { withExtendedLifetime(opened) {} }
        let bob = try await catalog.addUser(UserDraft(name: "bob", emails: ["bob@example.com"]))
        let other = try await catalog.addAccount(
            CalendarAccountDraft(provider: .ics, ownerID: bob.id, displayName: "/tmp/bob.ics"), now: now)
        // Alice's copy invites bob, and bob's names alice as organizer: they vouch for each other.
        let shared = occurrence("shared", at: 1, attendees: [Attendee(email: "bob@example.com", role: .required, response: .accepted)])
        for id in [account.id, other.id] {
            let changes = CalendarChangeSet(
                calendar: calendar, scope: .complete, updatedResources: [ResourceUpdate(resource: "shared", occurrences: [shared])])
            _ = try await catalog.applyCalendarChanges(changes, accountID: id, now: now)
        }
        let first = try await catalog.mirroredEvents(accountID: account.id, includeDeleted: false)
        let second = try await catalog.mirroredEvents(accountID: other.id, includeDeleted: false)
        #expect(first.count == 1 && second.count == 1 && first[0].meetingID == second[0].meetingID)
        #expect(try await catalog.statistics().counts["meetings"] == 1)
        // Calendars that vanished at the source go with their events.
        try await catalog.removeCalendars(accountID: other.id, except: [])
        #expect(try await catalog.mirroredEvents(accountID: other.id, includeDeleted: true).isEmpty)
    }

    /// Two daemons on one PostgreSQL catalog apply change sets of two accounts at once, with
    /// meetings in common: every write lands, every row has its own change number, and each
    /// shared occurrence is one meeting.
    @Test(.enabled(if: StoreBackend.postgresAvailable)) func daemonsApplyingChangeSetsAtOnceKeepTheMirrorWhole() async throws {
        let (store, account, opened) = try await setUp(.postgres)
        defer { withExtendedLifetime(opened) {} }
        let first = try #require(store as? PostgresCatalog)
        let second = try await PostgresCatalog.open(first.settings)
        defer { second.close() }
        let bob = try await first.addUser(UserDraft(name: "bob", emails: ["bob@example.com"]))
        let other = try await second.addAccount(CalendarAccountDraft(provider: .ics, ownerID: bob.id, displayName: "/tmp/bob.ics"), now: now)
        let rounds = 15
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (catalog, accountID) in [(first, account.id), (second, other.id)] {
                group.addTask {
                    for round in 0..<rounds {
                        let shared = occurrence(
                            "shared-\(round % 5)", at: Double(round % 5), title: "Round \(round)",
                            attendees: [Attendee(email: "bob@example.com", role: .required, response: .accepted)])
                        let own = occurrence("own-\(accountID)-\(round)", at: Double(round))
                        let changes = CalendarChangeSet(
                            calendar: calendar, scope: .incremental,
                            updatedResources: [shared, own].map { ResourceUpdate(resource: $0.remoteID, etag: $0.title, occurrences: [$0]) })
                        _ = try await catalog.applyCalendarChanges(changes, accountID: accountID, now: Date())
                    }
                }
            }
            try await group.waitForAll()
        }
        for accountID in [account.id, other.id] {
            #expect(try await first.mirroredEvents(accountID: accountID, includeDeleted: true).count == 5 + rounds)
        }
        #expect(try await first.statistics().counts["meetings"] == Int64(5 + 2 * rounds))
        let numbers = try await opened.rows("SELECT CAST(count(DISTINCT change_seq) AS TEXT), CAST(count(*) AS TEXT) FROM events")
        #expect(numbers.first?[0] == numbers.first?[1])
        let clock = try await opened.column("SELECT CAST(last AS TEXT) FROM change_clock")
        let highest = try await opened.column("SELECT CAST(max(change_seq) AS TEXT) FROM events")
        #expect(clock == highest)
    }
}
