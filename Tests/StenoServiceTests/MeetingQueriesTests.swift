import Foundation
import Logging
import StenoAPI
import StenoCalendar
import StenoCatalog
import StenoCore
import StenoSQLite
import Testing

@testable import StenoService

/// Meetings, attendees and search over the sample calendar, as two members and an admin see them.
@Suite("Meeting queries and visibility")
struct MeetingQueriesTests {
    let root = NSTemporaryDirectory() + "steno-meetings-" + UUID().uuidString
    static let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Media/calendars/team.ics").path

    @Test func membersSeeTheirMeetingsAndAdminsSeeAll() async throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let catalog = try await SQLiteCatalog.open(path: root + "/catalog.sqlite")
        let alice = try await catalog.addUser(UserDraft(name: "alice", emails: ["alice@example.com"]))
        let bob = try await catalog.addUser(UserDraft(name: "bob", emails: ["bob@example.com"]))
        let account = try await catalog.addAccount(
            CalendarAccountDraft(provider: .ics, ownerID: alice.id, displayName: Self.sample, settings: ["source": Self.sample]), now: Date())
        let transport = HTTPTransport()
        let syncer = CalendarSyncer(
            store: catalog, providers: [ICSProvider(transport: transport, defaultTimeZone: TimeZone(identifier: "UTC") ?? .current)],
            secrets: nil, settings: CalendarSettings(), logger: Logger(label: "test"))
        _ = try await syncer.sync(accountID: account.id, now: Date(timeIntervalSince1970: 1_795_000_000))
        try await transport.shutdown()
        // Alice's recording of the ACME call, linked through its iCalUID.
        let call = try await catalog.recordIngest(
            IngestRecord(
                path: "alice/acme.wav", size: 1, modified: Date(), contentHash: "acme", ownerID: alice.id,
                outcome: .ready(RecordingMetadata(
                    format: "wav", codec: "pcm", duration: 60, recordedAt: ISO8601DateFormatter().date(from: "2026-11-19T15:01:00Z"),
                    title: "ACME renewal call", iCalUIDHint: "customer-acme-2026-11-19@steno.example", transcript: "Carla asked about the Zürich office"))))
        try await RecordingLinker(store: catalog).link(recordingID: call.id)

        let everything = try await catalog.meetings(MeetingQuery(limit: 1000))
        let asAlice = try await catalog.meetings(MeetingQuery(visibleTo: alice.id, offset: 0, limit: 1000))
        let asBob = try await catalog.meetings(MeetingQuery(visibleTo: bob.id, offset: 0, limit: 1000))
        #expect(everything.count == 33 && asAlice.count == 33)  // all of them are in Alice's own calendar
        let bobTitles = Set(asBob.map(\.title))
        #expect(bobTitles == ["Team standup", "Team standup (moved)", "Design review: inbox watcher", "Sprint planning", "1:1 Alice / Bob", "Sprint retro"])
        #expect(asBob.map { $0.start ?? .distantPast } == asBob.map { $0.start ?? .distantPast }.sorted())

        // Filters: with an attendee, by title, recorded or not, by day.
        let withZoe = try await catalog.meetings(MeetingQuery(withEmail: "zoe@example.com", visibleTo: bob.id, offset: 0, limit: 1000))
        #expect(!withZoe.isEmpty && withZoe.allSatisfy { $0.title.hasPrefix("Team standup") })
        #expect(try await catalog.meetings(MeetingQuery(titleContains: "RETRO", visibleTo: bob.id, offset: 0, limit: 10)).map(\.title) == ["Sprint retro"])
        let recorded = try await catalog.meetings(MeetingQuery(recorded: true, limit: 10))
        #expect(recorded.map(\.title) == ["Customer call: ACME renewal"] && recorded.first?.recordings == [call.id])
        #expect(try await catalog.meetings(MeetingQuery(recorded: true, visibleTo: bob.id, offset: 0, limit: 10)).isEmpty)
        let day = try await catalog.meetings(
            MeetingQuery(from: ISO8601DateFormatter().date(from: "2026-11-20T00:00:00Z"), to: ISO8601DateFormatter().date(from: "2026-11-21T00:00:00Z"), limit: 10))
        #expect(day.map(\.title) == ["Team standup (moved)"])
        let paged = try await catalog.meetings(MeetingQuery(visibleTo: bob.id, offset: 2, limit: 2))
        #expect(paged.map(\.id) == Array(asBob.map(\.id)[2..<4]))

        // One meeting: attendees with responses and the recording; hidden from Bob.
        let detail = try await catalog.meeting(id: try #require(recorded.first?.id), visibleTo: alice.id)
        #expect(detail.attendees.map(\.email) == ["alice@example.com", "carla@acme.example"])
        #expect(detail.recordings.first?.method == .iCalUID && detail.meeting.organizer?.email == "alice@example.com")
        await #expect(throws: StoreError.self) { _ = try await catalog.meeting(id: detail.meeting.id, visibleTo: bob.id) }

        // Search: names without their accents, emails, titles and transcripts, within what one may see.
        let zoe = try await catalog.search("zoe", visibleTo: bob.id, offset: 0, limit: 100)
        #expect(!zoe.isEmpty && zoe.allSatisfy { $0.kind == "meeting" && $0.title.hasPrefix("Team standup") })
        #expect(try await catalog.search("田中", visibleTo: bob.id, offset: 0, limit: 10).map(\.title) == ["Design review: inbox watcher"])
        #expect(try await catalog.search("acme", visibleTo: bob.id, offset: 0, limit: 10).isEmpty)
        let acme = try await catalog.search("acme renewal", visibleTo: nil, offset: 0, limit: 10)
        #expect(acme.map(\.kind) == ["meeting", "recording"], "meeting hits first")
        #expect(try await catalog.search("acme renewal", visibleTo: nil, offset: 1, limit: 5).map(\.kind) == ["recording"])
        #expect(try await catalog.search("acme renewal", visibleTo: nil, offset: 0, limit: 1).map(\.kind) == ["meeting"])
        #expect(try await catalog.search("zurich", visibleTo: alice.id, offset: 0, limit: 10).map(\.id) == [call.id])
        #expect(try await catalog.search("zurich", visibleTo: bob.id, offset: 0, limit: 10).isEmpty)
    }

    /// A title or address holding a NUL is refused as invalid params on every backend: no
    /// title or address can hold one (PostgreSQL failed with its encoding error, SQLite read the
    /// pattern only up to it).
    @Test func aTextHoldingANulIsRefusedAsInvalidParams() async throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let catalog = try await SQLiteCatalog.open(path: root + "/catalog.sqlite")
        let harness = QueryMethodsHarness(store: catalog)
        for params in [MeetingListParams(title: "Re\u{0}view"), MeetingListParams(with: "bob@example.com\u{0}")] {
            do {
                _ = try await harness.call(StenoMethods.meetingsList, params, as: nil)
                Issue.record("\(params) was answered")
            } catch let error as RPCError {
                #expect(error.code == RPCError.invalidParamsCode, "\(error)")
            }
        }
        _ = try await harness.call(StenoMethods.meetingsList, MeetingListParams(title: "Review"), as: nil)
    }
}
