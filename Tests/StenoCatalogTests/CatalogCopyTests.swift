import Foundation
import GRDB
import Logging
import PostgresNIO
import StenoCore
@testable import StenoCatalog
@testable import StenoSQLite
import StenoTesting
import Testing

@testable import StenoPostgres

/// `stenod copy-catalog`: a SQLite catalog with something in every table lands in PostgreSQL
/// with every row, value kind and id kept.
@Suite("Copying a catalog to PostgreSQL", .enabled(if: StoreBackend.postgresAvailable, "PostgreSQL is not installed (apt-get install postgresql)"))
struct CatalogCopyTests {
    let now = Date(timeIntervalSince1970: 1_790_000_000)

    func populatedSQLite() async throws -> (SQLiteCatalog, TemporaryCatalog) {
        let temporary = TemporaryCatalog()
        let catalog = try await temporary.open()
        let alice = try await catalog.addUser(
            UserDraft(name: "Alice", displayName: "Alice Ø", emails: ["Alice@Example.com", "a.smith@example.com"], uids: [1000]))
        _ = try await catalog.addUser(UserDraft(name: "bob", emails: ["bob@example.com"]))
        let account = try await catalog.addAccount(
            CalendarAccountDraft(
                provider: .caldav, ownerID: alice.id, displayName: "https://dav.example/", settings: ["user": "alice"],
                sealedSecret: Data([0, 1, 2, 255])), now: now)
        let start = now.addingTimeInterval(3600)
        let occurrence = EventOccurrence(
            remoteID: "/cal/work/planning.ics", iCalUID: "planning", seriesUID: "planning", recurrenceID: nil,
            meetingIdentity: MeetingIdentity.iCalendar(uid: "planning", recurrenceID: nil), title: "Überprüfung der Planung",
            start: start, end: start.addingTimeInterval(1800),
            organizer: Attendee(email: "Alice@Example.com", name: "Alice", role: .organizer, response: .accepted),
            attendees: [Attendee(email: "carla@example.com", name: "Carla Zürich", response: .declined)])
        var changes = CalendarChangeSet(calendar: CalendarDescriptor(remoteID: "/cal/work/", name: "Work"), scope: .complete, syncState: "token-1")
        changes.updatedResources = [ResourceUpdate(resource: "/cal/work/planning.ics", etag: "\"7\"", occurrences: [occurrence])]
        _ = try await catalog.applyCalendarChanges(changes, accountID: account.id, now: now)
        let recording = try await catalog.recordIngest(
            IngestRecord(
                path: "alice/planning.wav", size: 4_096, modified: now, contentHash: "abc123", ownerID: alice.id,
                outcome: .ready(
                    RecordingMetadata(
                        format: "wav", codec: "pcm_s16le", duration: 61.5, sampleRate: 48_000, channels: 2, recordedAt: start,
                        recordedAtSource: .container, title: "Planning", transcript: "Carla fragt nach dem Büro", warnings: ["truncated"])),
                now: now))
        let event = try #require(try await catalog.mirroredEvents(accountID: account.id, includeDeleted: false).first)
        try await catalog.saveLink(
            LinkUpdate(
                recordingID: recording.id, state: .linked, method: .overlap, eventID: event.id, score: 0.93, actor: "linker",
                action: "linked", reason: "overlaps", at: now))
        _ = try await catalog.enqueue(JobDraft(kind: "revalidate", payload: #"{"recording":1}"#, priority: 3, uniqueKey: "revalidate:1"))
        _ = try await catalog.addDevice(ownerID: alice.id, label: "Alice's iPhone", timeZone: "Europe/Zurich", tokenHash: Data(repeating: 7, count: 32), now: now)
        // History fetched on demand two years back: a copy that lost it would ask again.
        let old = DateInterval(start: now.addingTimeInterval(-730 * 86_400), duration: 30 * 86_400)
        let claim = try await catalog.claimHistorySpans(accountID: account.id, claimant: "test/1", duration: .seconds(600), now: now) { _ in [old] }
        try await catalog.finishHistorySpans(claim, fetched: true, now: now)
        return (catalog, temporary)
    }

    func emptyPostgres() async throws -> PostgresCatalog {
        let cluster = try await PostgresCluster.shared()
        let settings = try PostgresSettings.parse(url: cluster.socketURL(database: try await cluster.createDatabase()))
        return try await PostgresCatalog.open(settings, logger: Logger(label: "steno.test.copy"))
    }

    @Test func everyTableArrivesWithItsValuesAndIDs() async throws {
        let (source, temporary) = try await populatedSQLite()
        _ = temporary
        let target = try await emptyPostgres()
        defer { target.close() }
        let report = try await target.copy(from: source) { _, _ in }
        for (table, rows) in report.tables {
            #expect(rows == (try await source.rowCount(of: table)), "\(table)")
        }
        #expect(report.tables.first { $0.name == "events" }?.rows == 1)
        #expect(report.tables.first { $0.name == "devices" }?.rows == 1)
        // The history fetched so far, per calendar.
        let account = try #require(try await source.accounts(ownerID: nil).first)
        let fetched = try await source.fetchedHistorySpans(accountID: account.id)
        #expect(fetched.values.contains { !$0.spans.isEmpty })
        #expect(try await target.fetchedHistorySpans(accountID: account.id) == fetched)

        // Value kinds: case-insensitive text, blobs, booleans, reals, JSON text, instants.
        let user = try #require(try await target.row("SELECT id, name, display_name FROM users WHERE name = 'alice'::citext"))
        let (userID, name, displayName) = try user.decode((Int64, String, String?).self)
        #expect(userID == 1 && name == "Alice" && displayName == "Alice Ø")
        // A user's emails keep their order (the first is the one shown).
        let sourceEmails = try await source.user(matching: "alice").emails
        #expect(sourceEmails.count == 2)
        #expect(try await target.user(matching: "alice").emails == sourceEmails)
        let secret = try #require(try await target.row("SELECT secret FROM calendar_accounts"))
        #expect(try secret.decode(Data.self) == Data([0, 1, 2, 255]))
        let calendar = try #require(try await target.row("SELECT is_enabled, sync_state FROM calendars"))
        let (enabled, syncState) = try calendar.decode((Bool, String?).self)
        #expect(enabled && syncState == "token-1")
        let recording = try #require(try await target.row("SELECT duration, recorded_at, warnings FROM recordings"))
        let (duration, recordedAt, warnings) = try recording.decode((Double, Int64, String?).self)
        #expect(duration == 61.5 && recordedAt == CatalogTime.milliseconds(now.addingTimeInterval(3600)))
        #expect(warnings?.contains("truncated") == true)
        let link = try #require(try await target.row("SELECT state, score, is_manual FROM links"))
        let (state, score, isManual) = try link.decode((String, Double?, Bool).self)
        #expect(state == "linked" && score == 0.93 && !isManual)

        // Search finds copied meetings and recordings by folded words.
        let meetingHits = try await target.rows(
            "SELECT meeting_id FROM meeting_search WHERE lexemes @@ \(SearchLexemes.prefixQuery(["uberpruf"]))::tsquery")
        #expect(meetingHits.count == 1)
        // As the mirror indexes it: the organizer too.
        let organizerHits = try await target.rows(
            "SELECT meeting_id FROM meeting_search WHERE lexemes @@ \(SearchLexemes.prefixQuery(["alice"]))::tsquery")
        #expect(organizerHits.count == 1)
        let recordingHits = try await target.rows(
            "SELECT recording_id FROM recording_search WHERE lexemes @@ \(SearchLexemes.prefixQuery(["buro"]))::tsquery")
        #expect(recordingHits.count == 1)

        // The addresses of meetings (`--with`), derived by the target's own triggers, are the source's.
        let copiedPeople = try await target.rows("SELECT meeting_id, lower(email::text), starts_at FROM meeting_people ORDER BY 1, 2")
            .map { try $0.decode((Int64, String, Int64?).self) }
        let sourcePeople = try await source.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT meeting_id, lower(email), starts_at FROM meeting_people ORDER BY 1, 2")
                .map { "\($0[0] as Int64) \($0[1] as String) \(String(describing: $0[2] as Int64?))" }
        }
        #expect(copiedPeople.map { "\($0.0) \($0.1) \(String(describing: $0.2))" } == sourcePeople)
        #expect(sourcePeople.count == 2)

        // New rows continue after the copied ids.
        let next = try #require(
            try await target.row("INSERT INTO users (name, created_at, updated_at) VALUES ('carol', 0, 0) RETURNING id"))
        #expect(try next.decode(Int64.self) == 3)
    }

    @Test func aTargetThatHoldsDataIsRefusedAndKept() async throws {
        let (source, temporary) = try await populatedSQLite()
        _ = temporary
        let target = try await emptyPostgres()
        defer { target.close() }
        try await target.execute("INSERT INTO users (name, created_at, updated_at) VALUES ('someone', 0, 0)")
        await #expect {
            _ = try await target.copy(from: source) { _, _ in }
        } throws: { error in
            "\(error)".contains("is not empty") && "\(error)".contains("users")
        }
        let users = try await target.row("SELECT count(*) FROM users")?.decode(Int64.self)
        #expect(users == 1)
    }
}
