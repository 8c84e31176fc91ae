import Foundation
import Logging
import StenoCalendar
import StenoCatalog
import StenoCore
import StenoSQLite
import Testing

@testable import StenoService

/// Linking and revalidation through the store, against the sample calendar mirrored by ICS.
@Suite("Recording linker over the catalog")
struct RecordingLinkerTests {
    let root = NSTemporaryDirectory() + "steno-link-" + UUID().uuidString
    static let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Media/calendars/team.ics").path
    let now = Date(timeIntervalSince1970: 1_795_000_000)  // 2026-11-18

    func utc(_ text: String) -> Date { ISO8601DateFormatter().date(from: text) ?? Date.distantPast }

    /// Alice's catalog with the sample calendar mirrored from a copy she may edit.
    func setUp() async throws -> (SQLiteCatalog, CalendarSyncer, CalendarAccount, HTTPTransport, String, User) {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let file = root + "/team.ics"
        try FileManager.default.copyItem(atPath: Self.sample, toPath: file)
        let catalog = try await SQLiteCatalog.open(path: root + "/catalog.sqlite")
        let alice = try await catalog.addUser(UserDraft(name: "alice", emails: ["alice@example.com"]))
        let account = try await catalog.addAccount(
            CalendarAccountDraft(provider: .ics, ownerID: alice.id, displayName: file, settings: ["source": file]), now: now)
        let transport = HTTPTransport()
        let syncer = CalendarSyncer(
            store: catalog, providers: [ICSProvider(transport: transport, defaultTimeZone: TimeZone(identifier: "UTC") ?? .current)],
            secrets: nil, settings: CalendarSettings(), logger: Logger(label: "test"))
        _ = try await syncer.sync(accountID: account.id, now: now)
        return (catalog, syncer, account, transport, file, alice)
    }

    func record(_ catalog: SQLiteCatalog, _ name: String, at start: Date, minutes: Double, owner: Int64, iCalUID: String? = nil) async throws -> Int64 {
        try await catalog.recordIngest(
            IngestRecord(
                path: "alice/\(name)", size: 10, modified: start, contentHash: name, ownerID: owner,
                outcome: .ready(RecordingMetadata(
                    format: "wav", codec: "pcm", duration: minutes * 60, recordedAt: start, recordedAtSource: .sidecar, iCalUIDHint: iCalUID)),
                now: now)
        ).id
    }

    /// The sample calendar without the design review, and with the moved standup of
    /// 2026-11-20 three hours later.
    static func withoutReviewAndWithStandupMoved(_ calendar: String) throws -> String {
        var text = calendar
        let reviewStart = try #require(text.range(of: "BEGIN:VEVENT\nUID:design-review"))
        let reviewEnd = try #require(text.range(of: "END:VEVENT\n", range: reviewStart.upperBound..<text.endIndex))
        text.removeSubrange(reviewStart.lowerBound..<reviewEnd.upperBound)
        return text.replacingOccurrences(of: "DTSTART;TZID=Europe/Berlin:20261120T103000", with: "DTSTART;TZID=Europe/Berlin:20261120T133000")
            .replacingOccurrences(of: "DTEND;TZID=Europe/Berlin:20261120T104500", with: "DTEND;TZID=Europe/Berlin:20261120T134500")
    }

    static func link(_ id: Int64, in catalog: SQLiteCatalog) async throws -> LinkSummary? {
        try await catalog.links(state: nil, visibleTo: nil, afterRecordingID: id - 1, limit: 1).first
    }

    @Test func recordingsLinkAndLinksFollowTheCalendar() async throws {
        let (catalog, syncer, account, transport, file, alice) = try await setUp()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let linker = RecordingLinker(store: catalog)
        // 10:30 Berlin = 09:30Z: the moved standup of 2026-11-20, not its original 08:30Z slot.
        let standup = try await record(catalog, "standup.wav", at: utc("2026-11-20T09:31:00Z"), minutes: 13, owner: alice.id)
        let review = try await record(catalog, "review.wav", at: utc("2026-11-18T14:02:00Z"), minutes: 55, owner: alice.id)
        let identity = try await record(
            catalog, "offsite.wav", at: utc("2026-11-26T09:00:00Z"), minutes: 30, owner: alice.id, iCalUID: "offsite-2026@steno.example")
        let waiting = try await record(
            catalog, "later.wav", at: utc("2026-11-24T09:00:00Z"), minutes: 30, owner: alice.id, iCalUID: "not-yet@steno.example")
        let nothing = try await record(catalog, "memo.wav", at: utc("2026-11-21T20:00:00Z"), minutes: 5, owner: alice.id)
        for id in [standup, review, identity, waiting, nothing] { try await linker.link(recordingID: id) }

        func link(_ id: Int64) async throws -> LinkSummary? { try await Self.link(id, in: catalog) }
        let linkedStandup = try #require(try await link(standup))
        #expect(linkedStandup.state == .linked && linkedStandup.method == .overlap && linkedStandup.meetingTitle == "Team standup (moved)")
        #expect(try await link(review)?.meetingTitle == "Design review: inbox watcher")
        let identityLink = try await link(identity)
        #expect(identityLink?.state == .linked && identityLink?.method == .iCalUID)
        #expect(try await link(waiting)?.state == .pending)
        #expect(try await link(nothing)?.state == .unlinked)
        // The attendee cache holds the event's attendees with their answers (and non-ASCII names).
        let attendees = try await catalog.linkAttendees(recordingID: review).map { "\($0.name ?? ""):\($0.response.rawValue)" }
        #expect(attendees.contains("田中 花子:none") && attendees.contains("Alice Example:accepted"))

        // The review is deleted; the standup moves 3 hours later; the pending event arrives.
        var text = try Self.withoutReviewAndWithStandupMoved(try String(contentsOfFile: file, encoding: .utf8))
        text = text.replacingOccurrences(
            of: "END:VCALENDAR",
            with: "BEGIN:VEVENT\nUID:not-yet@steno.example\nDTSTART:20261124T090000Z\nDTEND:20261124T093000Z\nSUMMARY:Arrived late\nEND:VEVENT\nEND:VCALENDAR")
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let before = Date().addingTimeInterval(-1)
        _ = try await syncer.sync(accountID: account.id, now: now)
        let handler = LinksAfterSyncJobHandler(linker: linker, store: catalog)
        let payload = "{\"since\":\(Int64(before.timeIntervalSince1970 * 1000))}"
        let job = Job(id: 1, kind: LinksAfterSyncJobHandler.kind, payload: payload, state: .running, priority: 0, attempts: 1, maxAttempts: 5,
                      runAt: before, createdAt: before, updatedAt: before)
        let attempt = JobAttempt<LinksAfterSyncJob>(claim: ClaimedJob(job: job, token: 1), payload: try LinksAfterSyncJob.payload(of: job))
        _ = try await handler.run([attempt], context: JobContext(logger: Logger(label: "test"), workerID: "test"))

        let orphan = try #require(try await link(review))
        #expect(orphan.state == .orphaned && orphan.meetingTitle == "Design review: inbox watcher")
        #expect(try await catalog.linkAttendees(recordingID: review).count == 4)
        // A link job reaching the orphan late (its sidecar read again after the deletion, seen
        // under load) keeps it orphaned with its cache: only a meeting that fits replaces it.
        _ = try await linker.link(recordingIDs: [review])
        #expect(try await link(review)?.state == .orphaned)
        #expect(try await catalog.linkAttendees(recordingID: review).count == 4)
        #expect(try await link(standup)?.state == .unlinked)
        let arrived = try #require(try await link(waiting))
        #expect(arrived.state == .linked && arrived.method == .iCalUID && arrived.meetingTitle == "Arrived late")
        let history = try await catalog.linkHistory(recordingID: review)
        #expect(history.map(\.action) == ["linked", "orphaned"])
        #expect(history.last?.actor == "revalidation")

        // A manual link wins and survives revalidation; so does a manual unlink.
        let meetingOfOffsite = try #require(try await link(identity)?.meeting)
        try await catalog.saveLink(
            LinkUpdate(recordingID: nothing, state: .linked, method: .manual, isManual: true,
                       eventID: try await catalog.meetingEvents(meetingID: meetingOfOffsite, exceptEventID: nil, ownerID: alice.id).first?.eventID,
                       actor: "alice", action: "linked-by-hand", reason: "test"))
        #expect(try await linker.revalidate(recordingID: nothing) == .stillValid)
        #expect(try await linker.link(recordingID: nothing) == nil)
        #expect(try await link(nothing)?.isManual == true)
        try await transport.shutdown()
    }

    /// A link job that reaches a linked recording after its event was deleted, before the
    /// sync's revalidation (a sidecar read again, seen under load), orphans it with its cache as
    /// revalidation would: it unlinked it and dropped the cache before, and the revalidation that
    /// came next, decided from the link as it was, then wrote an orphan with no meeting.
    @Test func aLinkJobAfterTheEventIsDeletedOrphansTheLink() async throws {
        let (catalog, syncer, account, transport, file, alice) = try await setUp()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let linker = RecordingLinker(store: catalog)
        let review = try await record(catalog, "review.wav", at: utc("2026-11-18T14:02:00Z"), minutes: 55, owner: alice.id)
        let standup = try await record(catalog, "standup.wav", at: utc("2026-11-20T09:31:00Z"), minutes: 13, owner: alice.id)
        _ = try await linker.link(recordingIDs: [review, standup])
        #expect(try await Self.link(review, in: catalog)?.state == .linked)

        // The review is deleted and the standup moved 3 hours later at the source; synced, not yet revalidated.
        try Self.withoutReviewAndWithStandupMoved(try String(contentsOfFile: file, encoding: .utf8))
            .write(toFile: file, atomically: true, encoding: .utf8)
        _ = try await syncer.sync(accountID: account.id, now: now)

        let changed = try await linker.link(recordingIDs: [review, standup])
        #expect(changed == [.orphaned: 1, .unlinked: 1])
        let orphan = try #require(try await Self.link(review, in: catalog))
        #expect(orphan.state == .orphaned && orphan.meetingTitle == "Design review: inbox watcher")
        #expect(try await catalog.linkAttendees(recordingID: review).count == 4)
        #expect(try await catalog.linkHistory(recordingID: review).map(\.action) == ["linked", "orphaned"])
        // The standup's event is there but no longer fits: unlinked, as revalidation does.
        #expect(try await Self.link(standup, in: catalog)?.state == .unlinked)
        try await transport.shutdown()
    }

    /// Bulk linking (event times scanned, nearby events read in full) decides exactly as
    /// linking one recording at a time (every candidate read in full).
    @Test func bulkLinkingDecidesLikeSingleLinking() async throws {
        let (catalog, _, _, transport, _, alice) = try await setUp()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let linker = RecordingLinker(store: catalog)
        let starts = ["2026-11-20T09:31:00Z", "2026-11-18T14:02:00Z", "2026-11-26T09:00:00Z", "2026-11-21T20:00:00Z", "2026-11-20T08:30:00Z"]
        var ids: [Int64] = []
        for (number, start) in starts.enumerated() {
            ids.append(try await record(catalog, "r\(number).wav", at: utc(start), minutes: 20, owner: alice.id))
        }
        var single: [Int64: LinkDecision] = [:]
        for id in ids { single[id] = try await linker.explain(recordingID: id) }
        let counts = try await linker.link(recordingIDs: ids)
        #expect(counts.values.reduce(0, +) == ids.count)
        for id in ids {
            let stored = try #require(try await Self.link(id, in: catalog))
            #expect(stored.state == single[id]?.state)
            #expect(stored.meeting == single[id]?.chosen?.candidate.meetingID)
        }
        try await transport.shutdown()
    }

    /// Several updates of one recording in one batch apply in order; an orphan keeps the
    /// cached copy of the event it lost; a batch naming a missing event writes nothing.
    @Test func batchedLinkWritesApplyInOrder() async throws {
        let (catalog, _, _, transport, _, alice) = try await setUp()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let id = try await record(catalog, "batch.wav", at: utc("2026-11-18T14:02:00Z"), minutes: 55, owner: alice.id)
        let events = try await catalog.linkCandidates(ownerID: alice.id, window: DateInterval(start: utc("2026-11-18T00:00:00Z"), duration: 86_400 * 3))
        let first = try #require(events.first)
        let second = try #require(events.last)
        try #require(first.eventID != second.eventID)
        try await catalog.saveLinks([
            LinkUpdate(recordingID: id, state: .linked, method: .overlap, eventID: first.eventID, actor: "test", action: "linked", reason: "1"),
            LinkUpdate(recordingID: id, state: .orphaned, method: .overlap, eventID: nil, keepsCache: true, actor: "test", action: "orphaned", reason: "2"),
        ])
        let orphan = try #require(try await Self.link(id, in: catalog))
        #expect(orphan.state == .orphaned && orphan.meetingTitle == first.title && orphan.meeting == first.meetingID)
        let cachedAttendees = try await catalog.linkAttendees(recordingID: id)
        #expect(!cachedAttendees.isEmpty)
        try await catalog.saveLinks([
            LinkUpdate(recordingID: id, state: .linked, method: .manual, isManual: true, eventID: second.eventID, actor: "test", action: "relinked", reason: "3"),
            LinkUpdate(recordingID: id, state: .unlinked, method: nil, eventID: nil, actor: "test", action: "unlinked", reason: "4"),
            LinkUpdate(recordingID: id, state: .linked, method: .manual, isManual: true, eventID: second.eventID, actor: "test", action: "relinked", reason: "5"),
        ])
        let relinked = try #require(try await Self.link(id, in: catalog))
        #expect(relinked.state == .linked && relinked.meetingTitle == second.title && relinked.isManual)
        #expect(try await catalog.linkHistory(recordingID: id).map(\.reason) == ["1", "2", "3", "4", "5"])
        await #expect(throws: StoreError.self) {
            try await catalog.saveLinks([
                LinkUpdate(recordingID: id, state: .unlinked, method: nil, eventID: nil, actor: "test", action: "unlinked", reason: "6"),
                LinkUpdate(recordingID: id, state: .linked, method: .manual, eventID: 987_654, actor: "test", action: "linked", reason: "7"),
            ])
        }
        #expect(try await catalog.linkHistory(recordingID: id).count == 5)
        #expect(try await Self.link(id, in: catalog)?.state == .linked)
        try await transport.shutdown()
    }
}
