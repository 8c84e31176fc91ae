import Foundation
import Logging
import StenoCalendar
import StenoCatalog
import StenoCore
import StenoSQLite
import StenoTestTraits
import StenoTesting
import Testing

@testable import StenoService

/// ICS accounts synced through the whole service path: provider, mirror, catalog, health.
@Suite("ICS calendar sync", .blocksThreads)
struct ICSCalendarSyncTests {
    let root = NSTemporaryDirectory() + "steno-ics-" + UUID().uuidString
    static let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Media/calendars/team.ics").path
    /// The samples are from November 2026: sync "now" is fixed so the window holds them forever.
    let now = Date(timeIntervalSince1970: 1_795_000_000)  // 2026-11-18

    /// Runs `body` with a syncer for an ICS account reading `source`; the HTTP client is shut down after.
    func withSyncer(source: String, _ body: (CalendarSyncer, SQLiteCatalog, CalendarAccount) async throws -> Void) async throws {
        let (syncer, catalog, account, transport) = try await setUp(source: source)
        do {
            try await body(syncer, catalog, account)
        } catch {
            try? await transport.shutdown()
            throw error
        }
        try await transport.shutdown()
    }

    func setUp(source: String) async throws -> (CalendarSyncer, SQLiteCatalog, CalendarAccount, HTTPTransport) {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let catalog = try await SQLiteCatalog.open(path: root + "/catalog.sqlite")
        let alice = try await catalog.addUser(UserDraft(name: "alice", emails: ["alice@example.com"]))
        let account = try await catalog.addAccount(
            CalendarAccountDraft(provider: .ics, ownerID: alice.id, displayName: source, settings: ["source": source]), now: now)
        let transport = HTTPTransport()
        // The test servers listen on 127.0.0.1, which alice's (a member's) accounts may reach only when allowed.
        var settings = CalendarSettings()
        settings.memberNetworks = ["127.0.0.1"]
        let syncer = CalendarSyncer(
            store: catalog, providers: [ICSProvider(transport: transport, defaultTimeZone: TimeZone(identifier: "UTC") ?? .current)],
            secrets: nil, settings: settings, logger: Logger(label: "test"))
        return (syncer, catalog, account, transport)
    }

    func utc(_ text: String) -> Date? { ISO8601DateFormatter().date(from: text) }

    @Test func theSampleCalendarIsMirroredWithItsRecurrenceOverridesAndAttendees() async throws {
        let file = root + "/team.ics"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.sample, toPath: file)
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await withSyncer(source: file) { syncer, catalog, account in
            let first = try await syncer.sync(accountID: account.id, now: now)
            #expect(first.report.fullSyncs == 1 && first.report.changes.inserted > 20)
            let events = try await catalog.mirroredEvents(accountID: account.id, includeDeleted: false)
            let standups = events.filter { $0.occurrence.seriesUID == "standup-7f3a@steno.example" }
            // Mondays, Wednesdays and Fridays of 2026-11-02 … 2026-12-31, less the EXDATE.
            #expect(standups.count == 26 - 1)
            #expect(!standups.contains { $0.occurrence.start == utc("2026-11-11T08:30:00Z") })
            // 09:30 Berlin is 08:30 UTC in winter.
            #expect(standups.first?.occurrence.start == utc("2026-11-02T08:30:00Z"))
            // The moved occurrence keeps its identity (its original start) and has its new time.
            let moved = try #require(standups.first { $0.occurrence.title == "Team standup (moved)" })
            #expect(moved.occurrence.start == utc("2026-11-20T09:30:00Z"))
            #expect(moved.occurrence.recurrenceID == utc("2026-11-20T08:30:00Z"))
            #expect(moved.occurrence.meetingIdentity == "standup-7f3a@steno.example#20261120T083000Z")
            #expect(moved.occurrence.attendees.first { $0.email == "zoe@example.com" }?.response == .declined)
            #expect(moved.occurrence.attendees.first { $0.email == "zoe@example.com" }?.name == "Zoë Müller")
            let review = try #require(events.first { $0.occurrence.title.hasPrefix("Design review") })
            #expect(review.occurrence.organizer?.email == "bob@example.com")
            #expect(review.occurrence.attendees.contains { $0.name == "田中 花子" && $0.response == .none })
            #expect(review.occurrence.attendees.contains { $0.email == "room-412@example.com" && $0.role == .resource })
            let offsite = try #require(events.first { $0.occurrence.title == "Team offsite" })
            #expect(offsite.occurrence.isAllDay && offsite.occurrence.allDayStart == "2026-11-26" && offsite.occurrence.allDayEnd == "2026-11-28")
            #expect(events.first { $0.occurrence.title == "Vendor sync" }?.occurrence.status == .cancelled)
            let stored = try await catalog.account(id: account.id)
            #expect(stored.health == .ok && stored.lastSuccessAt != nil && stored.nextSyncAt != nil)
            #expect(try await catalog.calendars(accountID: account.id, ownerID: nil).first?.name == "Team")

            // Nothing changed: the scheduler sees no change, and a sync does not even parse the file.
            #expect(!ICSProvider.localSourceChanged(account: stored, calendars: try await catalog.calendars(accountID: account.id, ownerID: nil)))
            let second = try await syncer.sync(accountID: account.id, now: now)
            #expect(second.report.fullSyncs == 0 && second.report.changes == MirrorChangeSummary())

            // The review is deleted and the offsite renamed: exactly those changes.
            var text = try String(contentsOfFile: file, encoding: .utf8)
            let reviewStart = try #require(text.range(of: "BEGIN:VEVENT\nUID:design-review"))
            let reviewEnd = try #require(text.range(of: "END:VEVENT\n", range: reviewStart.upperBound..<text.endIndex))
            text.removeSubrange(reviewStart.lowerBound..<reviewEnd.upperBound)
            text = text.replacingOccurrences(of: "SUMMARY:Team offsite", with: "SUMMARY:Team offsite (Lisbon)")
            try text.write(toFile: file, atomically: true, encoding: .utf8)
            #expect(ICSProvider.localSourceChanged(account: stored, calendars: try await catalog.calendars(accountID: account.id, ownerID: nil)))
            let third = try await syncer.sync(accountID: account.id, now: now)
            #expect(third.report.changes.deleted == 1 && third.report.changes.updated == 1 && third.report.changes.inserted == 0)
            #expect(third.touchedMeetingIDs.count == 2)
            let after = try await catalog.mirroredEvents(accountID: account.id, includeDeleted: true)
            #expect(after.first { $0.occurrence.title.hasPrefix("Design review") }?.deletedAt != nil)
            #expect(after.filter { $0.deletedAt == nil }.count == events.count - 1)
        }
    }

    @Test func aBrokenFileMarksTheAccountFailingAndKeepsTheMirror() async throws {
        let file = root + "/broken.ics"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.sample, toPath: file)
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await withSyncer(source: file) { syncer, catalog, account in
            _ = try await syncer.sync(accountID: account.id, now: now)
            let before = try await catalog.mirroredEvents(accountID: account.id, includeDeleted: false).count
            try "BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:x\nDTSTART:garbage\n".write(toFile: file, atomically: true, encoding: .utf8)
            await #expect(throws: CalendarSyncError.self) { _ = try await syncer.sync(accountID: account.id, now: now) }
            let failed = try await catalog.account(id: account.id)
            #expect(failed.health == .failing)
            #expect(failed.lastError?.contains("broken.ics") == true)
            #expect(try await catalog.mirroredEvents(accountID: account.id, includeDeleted: false).count == before)
        }
    }

    @Test func aURLIsFetchedAgainOnlyWhenItChanged() async throws {
        try FileManager.default.createDirectory(atPath: root + "/www", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.sample, toPath: root + "/www/team.ics")
        let server = try PythonHTTPServer(directory: root + "/www")
        defer { server.stop() }
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await withSyncer(source: "http://127.0.0.1:\(server.port)/team.ics") { syncer, catalog, account in
            let first = try await syncer.sync(accountID: account.id, now: now)
            #expect(first.report.requests == 1 && first.report.bytesReceived > 1000 && first.report.changes.inserted > 20)
            // Same day, same file: a conditional GET answered 304, nothing parsed.
            let second = try await syncer.sync(accountID: account.id, now: now)
            #expect(second.report.requests == 1 && second.report.bytesReceived == 0 && second.report.fullSyncs == 0)
            // A missing file is an error the account shows.
            _ = try await catalog.removeAccount(id: account.id)
            let missing = try await catalog.addAccount(
                CalendarAccountDraft(provider: .ics, ownerID: account.ownerID, displayName: "missing",
                                     settings: ["source": "http://127.0.0.1:\(server.port)/nope.ics"]), now: now)
            await #expect(throws: CalendarSyncError.self) { _ = try await syncer.sync(accountID: missing.id, now: now) }
            #expect(try await catalog.account(id: missing.id).lastError?.contains("HTTP 404") == true)
        }
    }
}

/// `python3 -m http.server` on 127.0.0.1 and a free port: a real HTTP server with
/// Last-Modified / If-Modified-Since, for ICS URL tests.
final class PythonHTTPServer: @unchecked Sendable {
    let process: ChildProcess
    let port: Int

    init(directory: String) throws {
        port = Int.random(in: 20_000...60_000)
        process = try ChildProcess(
            "/usr/bin/env", ["python3", "-m", "http.server", String(port), "--bind", "127.0.0.1", "--directory", directory])
        // Wait (bounded) until it accepts connections.
        for _ in 0..<100 {
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            close(socket)
            if connected == 0 { return }
            usleep(50_000)
        }
        stop()
        throw TestFailure("python3 -m http.server did not start on port \(port)")
    }

    /// Kills the server (its files are the test's; nothing to shut down cleanly).
    func stop() { process.stop(signal: SIGKILL) }
}

extension ICSCalendarSyncTests {
    /// A file edited long after its first sync: events and occurrences the window has left
    /// behind stay in the mirror (their recordings' links must not be orphaned by time
    /// passing); an event deleted from the file is deleted, however old.
    @Test func eventsTheWindowLeftBehindStayWhenTheFileChanges() async throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let file = root + "/cal.ics"
        func write(_ events: [String]) throws {
            let body = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN"] + events + ["END:VCALENDAR"]
            try (body.joined(separator: "\r\n") + "\r\n").write(toFile: file, atomically: true, encoding: .utf8)
        }
        func event(_ uid: String, _ start: String, _ extra: [String] = []) -> String {
            (["BEGIN:VEVENT", "UID:\(uid)", "DTSTAMP:20260101T000000Z", "DTSTART:\(start)", "DURATION:PT1H", "SUMMARY:\(uid)"] + extra
                + ["END:VEVENT"]).joined(separator: "\r\n")
        }
        let review = event("review", "20260105T100000Z")
        let gone = event("gone", "20260106T100000Z")
        let weekly = event("weekly", "20260105T090000Z", ["RRULE:FREQ=WEEKLY;COUNT=60"])
        try write([review, gone, weekly])
        try await withSyncer(source: file) { syncer, catalog, account in
            let january = try #require(utc("2026-01-10T00:00:00Z"))
            _ = try await syncer.sync(accountID: account.id, now: january)
            let before = try await catalog.mirroredEvents(accountID: account.id, includeDeleted: false)
            #expect(before.contains { $0.occurrence.title == "review" } && before.contains { $0.occurrence.title == "gone" })
            let firstWeekly = try #require(before.first { $0.occurrence.title == "weekly" })

            // In November the window no longer reaches January; the file is edited then.
            try write([review, weekly, event("new", "20261120T100000Z")])
            _ = try await syncer.sync(accountID: account.id, now: now)
            let after = try await catalog.mirroredEvents(accountID: account.id, includeDeleted: false)
            #expect(after.contains { $0.occurrence.title == "review" }, "still in the file, outside the window: kept")
            #expect(after.contains { $0.id == firstWeekly.id }, "an occurrence the window left behind: kept")
            #expect(!after.contains { $0.occurrence.title == "gone" }, "deleted from the file: deleted")
            #expect(after.contains { $0.occurrence.title == "new" })
        }
    }
}
