import Foundation
import GRDB
import Logging
import StenoCalendar
import StenoCore
@testable import StenoCatalog
@testable import StenoSQLite
import StenoTestTraits
import StenoTesting
import Synchronization
import Testing

@testable import StenoService

/// Recordings dated 13 months and 3 years back link to meetings their owner's ICS and CalDAV
/// (Radicale) accounts hold only outside the mirrored window: the linker asks for that history.
@Suite(
    "Linking old recordings through history on demand", .serialized, .blocksThreads,
    .enabled(if: TestRequirement.runs(when: RadicaleServer.isInstalled), "needs `pip install radicale`"))
struct HistoryLinkingTests {
    let root = NSTemporaryDirectory() + "steno-history-" + UUID().uuidString
    let now = Date()

    /// A whole hour `days` days before now, plus `hours`.
    func at(days: Double, hours: Double = 0) -> Date {
        Date(timeIntervalSince1970: ((now.timeIntervalSince1970 - days * 86_400) / 86_400).rounded(.down) * 86_400 + hours * 3600)
    }

    static func utc(_ date: Date) -> String { MeetingIdentity.basicUTC(date) }

    static func calendar(_ events: [[String]]) -> String {
        (["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Steno//Test//EN"] + events.flatMap { ["BEGIN:VEVENT", "DTSTAMP:20260101T000000Z"] + $0 + ["END:VEVENT"] }
            + ["END:VCALENDAR"]).joined(separator: "\r\n") + "\r\n"
    }

    static func event(_ uid: String, _ title: String, _ start: Date, minutes: Double, extra: [String] = []) -> [String] {
        ["UID:\(uid)", "DTSTART:\(utc(start))", "DTEND:\(utc(start.addingTimeInterval(minutes * 60)))", "SUMMARY:\(title)"] + extra
    }

    /// Counts the provider requests history fetches make.
    final class CountingSource: CalendarHistorySource {
        let inner: any CalendarHistorySource
        let requests = Mutex(0)
        init(_ inner: any CalendarHistorySource) { self.inner = inner }
        func fetchHistory(_ spans: [String: [DateInterval]], context: CalendarSyncContext) async throws -> CalendarSyncReport {
            let report = try await inner.fetchHistory(spans, context: context)
            requests.withLock { $0 += report.requests }
            return report
        }
    }

    func record(_ catalog: SQLiteCatalog, _ name: String, at start: Date, minutes: Double, owner: Int64) async throws -> Int64 {
        try await catalog.recordIngest(
            IngestRecord(
                path: "alice/\(name)", size: 10, modified: start, contentHash: name, ownerID: owner,
                outcome: .ready(RecordingMetadata(format: "wav", codec: "pcm", duration: minutes * 60, recordedAt: start, recordedAtSource: .sidecar)),
                now: now)
        ).id
    }

    @Test("overlap, back-to-back, a moved occurrence and a cancelled meeting at 13 months and 3 years: the same answers as at recent dates, each span asked for once")
    func oldRecordingsLink() async throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let month13 = at(days: 395)
        let year3 = at(days: 1095)
        let seriesStart = month13.addingTimeInterval(-14 * 86_400 + 14 * 3600)
        let movedSlot = month13.addingTimeInterval(14 * 3600)
        let radicale = try RadicaleServer(users: ["alice": "s3cret"]) { storage in
            let folder = storage + "/collection-root/alice/work"
            try RadicaleServer.writeCalendarProps(folder: folder, displayName: "Work")
            try Self.calendar([Self.event("budget", "Budget review", month13.addingTimeInterval(10 * 3600), minutes: 60)])
                .write(toFile: folder + "/budget.ics", atomically: true, encoding: .utf8)
            try Self.calendar([Self.event("planning", "Planning", month13.addingTimeInterval(11 * 3600), minutes: 60)])
                .write(toFile: folder + "/planning.ics", atomically: true, encoding: .utf8)
            try Self.calendar([
                Self.event("sync", "Team sync", seriesStart, minutes: 30, extra: ["RRULE:FREQ=WEEKLY;COUNT=6"]),
                Self.event("sync", "Team sync (moved)", movedSlot.addingTimeInterval(2 * 3600), minutes: 30, extra: ["RECURRENCE-ID:\(Self.utc(movedSlot))"]),
            ]).write(toFile: folder + "/sync.ics", atomically: true, encoding: .utf8)
        }
        defer { radicale.shutdown() }
        let file = root + "/archive.ics"
        try Self.calendar([
            Self.event("kickoff", "Kick-off", year3.addingTimeInterval(9 * 3600), minutes: 60),
            Self.event("offsite", "Offsite", year3.addingTimeInterval(13 * 3600), minutes: 120, extra: ["STATUS:CANCELLED"]),
        ]).write(toFile: file, atomically: true, encoding: .utf8)

        let catalog = try await SQLiteCatalog.open(path: root + "/catalog.sqlite")
        let alice = try await catalog.addUser(UserDraft(name: "alice", emails: ["alice@example.com"], role: .admin))
        let secrets = SecretBox(keyBytes: Array(repeating: 5, count: 32))
        let ics = try await catalog.addAccount(
            CalendarAccountDraft(provider: .ics, ownerID: alice.id, displayName: "archive", settings: ["source": file]), now: now)
        let caldav = try await catalog.addAccount(
            CalendarAccountDraft(
                provider: .caldav, ownerID: alice.id, displayName: "work", settings: ["url": radicale.baseURL.absoluteString, "user": "alice"],
                sealedSecret: try secrets.seal(CalendarCredentials(password: "s3cret"))),
            now: now)
        let transport = HTTPTransport()
        let zone = TimeZone(identifier: "UTC") ?? .current
        let icsProvider = ICSProvider(transport: transport, defaultTimeZone: zone)
        let caldavProvider = CalDAVProvider(transport: transport, options: CalDAVProvider.Options(defaultTimeZone: zone))
        let syncer = CalendarSyncer(
            store: catalog, providers: [icsProvider, caldavProvider], secrets: secrets, settings: CalendarSettings(), logger: Logger(label: "test"))
        do {
            _ = try await syncer.sync(accountID: ics.id, now: now)
            _ = try await syncer.sync(accountID: caldav.id, now: now)
            let counted = CountingSource(caldavProvider)
            let history = CalendarHistoryFetcher(
                store: catalog, sources: [.ics: icsProvider, .caldav: counted], secrets: secrets, settings: CalendarSettings(),
                logger: Logger(label: "test"))
            let linker = RecordingLinker(store: catalog, history: history)

            let overlap = try await record(catalog, "budget.wav", at: month13.addingTimeInterval(10 * 3600 + 120), minutes: 48, owner: alice.id)
            let backToBack = try await record(catalog, "planning.wav", at: month13.addingTimeInterval(11 * 3600 + 60), minutes: 55, owner: alice.id)
            let moved = try await record(catalog, "sync.wav", at: movedSlot.addingTimeInterval(2 * 3600 + 60), minutes: 25, owner: alice.id)
            let kickoff = try await record(catalog, "kickoff.wav", at: year3.addingTimeInterval(9 * 3600 + 180), minutes: 50, owner: alice.id)
            let cancelled = try await record(catalog, "offsite.wav", at: year3.addingTimeInterval(13 * 3600 + 300), minutes: 90, owner: alice.id)
            let ids = [overlap, backToBack, moved, kickoff, cancelled]
            _ = try await linker.link(recordingIDs: ids)

            func link(_ id: Int64) async throws -> LinkSummary? {
                try await catalog.links(state: nil, visibleTo: nil, afterRecordingID: id - 1, limit: 1).first
            }
            #expect(try await link(overlap)?.meetingTitle == "Budget review")
            #expect(try await link(backToBack)?.meetingTitle == "Planning")
            #expect(try await link(moved)?.meetingTitle == "Team sync (moved)")
            #expect(try await link(kickoff)?.meetingTitle == "Kick-off")
            #expect(try await link(cancelled)?.state == .unlinked)
            // Two spans (13 months, 3 years) of one calendar: a calendar-query each, answering
            // with the objects' data.
            #expect(counted.requests.withLock { $0 } == 2)

            // Linked again and revalidated: nothing asked twice.
            _ = try await linker.link(recordingIDs: ids)
            let counts = try await linker.revalidate(recordingIDs: ids)
            #expect(counted.requests.withLock { $0 } == 2)
            #expect(counts[.stillValid] == 4)

            // The regular syncs, a week later (CalDAV lists the window it gained, ICS reads a
            // file that changed), keep the history they never looked at: the links hold.
            try (try String(contentsOfFile: file, encoding: .utf8)).replacingOccurrences(of: "SUMMARY:Kick-off", with: "SUMMARY:Kick-off\r\nLOCATION:HQ")
                .write(toFile: file, atomically: true, encoding: .utf8)
            let later = now.addingTimeInterval(8 * 86_400)
            _ = try await syncer.sync(accountID: ics.id, now: later)
            _ = try await syncer.sync(accountID: caldav.id, now: later)
            #expect(try await linker.revalidate(recordingIDs: ids)[.stillValid] == 4)

            // A daemon started again on the same catalog asks for none of it either.
            let restarted = CountingSource(caldavProvider)
            let afterRestart = RecordingLinker(
                store: catalog,
                history: CalendarHistoryFetcher(
                    store: catalog, sources: [.ics: CountingSource(icsProvider), .caldav: restarted], secrets: secrets,
                    settings: CalendarSettings(), logger: Logger(label: "test")))
            _ = try await afterRestart.link(recordingIDs: ids)
            #expect(try await afterRestart.revalidate(recordingIDs: ids)[.stillValid] == 4)
            #expect(restarted.requests.withLock { $0 } == 0)
            #expect(try await catalog.writer.read { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM events WHERE from_history = 1 AND deleted_at IS NULL") ?? 0
            } >= 5)
            try await transport.shutdown()
        } catch {
            try? await transport.shutdown()
            throw error
        }
    }

    @Test("a calendar disabled while a span was fetched, enabled again, or found by a later sync: a relink asks it alone for that span and finds its meeting")
    func calendarsEnabledOrFoundLaterGetTheirHistory() async throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let month13 = at(days: 395)
        func write(_ collection: String, _ name: String, _ event: [String], storage: String) throws {
            let folder = storage + "/collection-root/alice/\(collection)"
            try RadicaleServer.writeCalendarProps(folder: folder, displayName: name)
            try Self.calendar([event]).write(toFile: folder + "/\(collection).ics", atomically: true, encoding: .utf8)
        }
        let radicale = try RadicaleServer(users: ["alice": "s3cret"]) { storage in
            try write("work", "Work", Self.event("budget", "Budget review", month13.addingTimeInterval(10 * 3600), minutes: 60), storage: storage)
            try write("team", "Team", Self.event("retro", "Retro", month13.addingTimeInterval(14 * 3600), minutes: 60), storage: storage)
        }
        defer { radicale.shutdown() }
        let catalog = try await SQLiteCatalog.open(path: root + "/catalog.sqlite")
        let alice = try await catalog.addUser(UserDraft(name: "alice", emails: ["alice@example.com"], role: .admin))
        let secrets = SecretBox(keyBytes: Array(repeating: 5, count: 32))
        let account = try await catalog.addAccount(
            CalendarAccountDraft(
                provider: .caldav, ownerID: alice.id, displayName: "work", settings: ["url": radicale.baseURL.absoluteString, "user": "alice"],
                sealedSecret: try secrets.seal(CalendarCredentials(password: "s3cret"))),
            now: now)
        let transport = HTTPTransport()
        let provider = CalDAVProvider(transport: transport, options: CalDAVProvider.Options(defaultTimeZone: TimeZone(identifier: "UTC") ?? .current))
        let syncer = CalendarSyncer(store: catalog, providers: [provider], secrets: secrets, settings: CalendarSettings(), logger: Logger(label: "test"))
        do {
            _ = try await syncer.sync(accountID: account.id, now: now)
            let team = try #require(try await catalog.calendars(accountID: account.id, ownerID: nil).first { $0.name == "Team" })
            _ = try await catalog.setCalendarEnabled(id: team.id, enabled: false, now: now)
            let counted = CountingSource(provider)
            let linker = RecordingLinker(
                store: catalog,
                history: CalendarHistoryFetcher(
                    store: catalog, sources: [.caldav: counted], secrets: secrets, settings: CalendarSettings(), logger: Logger(label: "test")))
            func link(_ id: Int64) async throws -> LinkSummary? {
                try await catalog.links(state: nil, visibleTo: nil, afterRecordingID: id - 1, limit: 1).first
            }
            let budget = try await record(catalog, "budget.wav", at: month13.addingTimeInterval(10 * 3600 + 120), minutes: 50, owner: alice.id)
            let retro = try await record(catalog, "retro.wav", at: month13.addingTimeInterval(14 * 3600 + 60), minutes: 55, owner: alice.id)
            _ = try await linker.link(recordingIDs: [budget, retro])
            #expect(try await link(budget)?.meetingTitle == "Budget review")
            #expect(try await link(retro)?.state == .unlinked)
            // The span, of the one enabled calendar: one calendar-query.
            #expect(counted.requests.withLock { $0 } == 1)

            // Enabled again (and synced, as `steno calendars enable` does): the relink asks that
            // calendar alone for the span.
            _ = try await catalog.setCalendarEnabled(id: team.id, enabled: true, now: now)
            _ = try await syncer.sync(accountID: account.id, now: now)
            _ = try await linker.link(recordingIDs: [budget, retro])
            #expect(try await link(retro)?.meetingTitle == "Retro")
            #expect(try await link(budget)?.meetingTitle == "Budget review")
            #expect(counted.requests.withLock { $0 } == 2)

            // A calendar created since, found by the next sync: asked alone too (the recording
            // falls inside the span the others have).
            try write("board", "Board", Self.event("board", "Board meeting", month13.addingTimeInterval(12 * 3600), minutes: 60), storage: radicale.storageFolder)
            _ = try await syncer.sync(accountID: account.id, now: now)
            #expect(try await catalog.calendars(accountID: account.id, ownerID: nil).count == 3)
            let board = try await record(catalog, "board.wav", at: month13.addingTimeInterval(12 * 3600 + 60), minutes: 55, owner: alice.id)
            _ = try await linker.link(recordingIDs: [budget, retro, board])
            #expect(try await link(board)?.meetingTitle == "Board meeting")
            #expect(counted.requests.withLock { $0 } == 3)
            try await transport.shutdown()
        } catch {
            try? await transport.shutdown()
            throw error
        }
    }

    @Test("declined against accepted, and parallel twins, at 10 days, 13 months and 3 years: the same answers at every date")
    func declinedAndTwinsAnswerAlikeAtEveryDate() async throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let days: [Double] = [10, 395, 1095]
        func invited(_ response: String) -> [String] {
            ["ORGANIZER:mailto:carol@example.com", "ATTENDEE;PARTSTAT=\(response):mailto:alice@example.com"]
        }
        var events: [[String]] = []
        for day in days {
            let base = at(days: day)
            events += [
                Self.event("pitch-\(day)", "Vendor pitch", base.addingTimeInterval(15 * 3600), minutes: 60, extra: invited("DECLINED")),
                Self.event("roadmap-\(day)", "Roadmap", base.addingTimeInterval(15 * 3600), minutes: 60, extra: invited("ACCEPTED")),
                Self.event("twin-a-\(day)", "Interview A", base.addingTimeInterval(17 * 3600), minutes: 30, extra: invited("ACCEPTED")),
                Self.event("twin-b-\(day)", "Interview B", base.addingTimeInterval(17 * 3600), minutes: 30, extra: invited("ACCEPTED")),
            ]
        }
        let file = root + "/team.ics"
        try Self.calendar(events).write(toFile: file, atomically: true, encoding: .utf8)

        let catalog = try await SQLiteCatalog.open(path: root + "/catalog.sqlite")
        let alice = try await catalog.addUser(UserDraft(name: "alice", emails: ["alice@example.com"], role: .admin))
        let secrets = SecretBox(keyBytes: Array(repeating: 5, count: 32))
        let ics = try await catalog.addAccount(
            CalendarAccountDraft(provider: .ics, ownerID: alice.id, displayName: "team", settings: ["source": file]), now: now)
        let transport = HTTPTransport()
        let icsProvider = ICSProvider(transport: transport, defaultTimeZone: TimeZone(identifier: "UTC") ?? .current)
        do {
            let syncer = CalendarSyncer(
                store: catalog, providers: [icsProvider], secrets: secrets, settings: CalendarSettings(), logger: Logger(label: "test"))
            _ = try await syncer.sync(accountID: ics.id, now: now)
            let linker = RecordingLinker(
                store: catalog,
                history: CalendarHistoryFetcher(
                    store: catalog, sources: [.ics: icsProvider], secrets: secrets, settings: CalendarSettings(), logger: Logger(label: "test")))
            var answers: [Double: (roadmap: LinkSummary?, twins: LinkSummary?)] = [:]
            for day in days {
                let base = at(days: day)
                let roadmap = try await record(catalog, "roadmap-\(day).wav", at: base.addingTimeInterval(15 * 3600 + 120), minutes: 55, owner: alice.id)
                let twins = try await record(catalog, "interview-\(day).wav", at: base.addingTimeInterval(17 * 3600 + 60), minutes: 28, owner: alice.id)
                _ = try await linker.link(recordingIDs: [roadmap, twins])
                func link(_ id: Int64) async throws -> LinkSummary? {
                    try await catalog.links(state: nil, visibleTo: nil, afterRecordingID: id - 1, limit: 1).first
                }
                answers[day] = (try await link(roadmap), try await link(twins))
            }
            for day in days {
                #expect(answers[day]?.roadmap?.state == .linked && answers[day]?.roadmap?.meetingTitle == "Roadmap", "\(day) days back: \(String(describing: answers[day]?.roadmap))")
                #expect(answers[day]?.twins?.state == .ambiguous, "\(day) days back: \(String(describing: answers[day]?.twins))")
            }
            try await transport.shutdown()
        } catch {
            try? await transport.shutdown()
            throw error
        }
    }
}
