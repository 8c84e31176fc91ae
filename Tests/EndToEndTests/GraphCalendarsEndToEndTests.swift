import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// Every calendar of a Microsoft account end to end: the double serves Alice three calendars
/// (her default one, her "Team" calendar, and Bob's shared with her), a real stenod mirrors
/// all three and links a recording to a meeting in each; `steno calendars disable` orphans
/// the links into the disabled one only, and `enable` mirrors it again.
@Suite("Microsoft Graph: every calendar of an account", .blocksThreads, .serialized)
struct GraphCalendarsEndToEndTests {
    static let alice = "alice@contoso.com"

    /// A meeting `hoursBack` hours before the last whole hour, with Alice invited.
    static func meeting(_ id: String, _ subject: String, hoursBack: Double, organizer: String) -> GraphDouble.Event {
        let hour = (Date().timeIntervalSince1970 / 3600).rounded(.down) * 3600
        let start = Date(timeIntervalSince1970: hour - hoursBack * 3600)
        return GraphDouble.Event(
            id: id, iCalUId: "ical-\(id)@contoso.com", subject: subject, start: start, end: start.addingTimeInterval(3600),
            organizer: .init(email: organizer),
            attendees: [.init(organizer, response: "organizer"), .init(alice, name: "Alice", response: "accepted")])
    }

    /// Drops a recording made 10 minutes into `event` into Alice's inbox.
    func record(_ event: GraphDouble.Event, title: String, seed: Int, daemon: TestDaemon) throws {
        let inbox = daemon.inboxDirectory + "/alice"
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        let recordedAt = ISO8601DateFormatter().string(from: event.start.addingTimeInterval(600))
        try Data("{\"recordedAt\": \"\(recordedAt)\", \"title\": \"\(title)\"}".utf8)
            .write(to: URL(fileURLWithPath: inbox + "/\(title).json"))
        try IngestionEndToEndTests.wav(seed: seed).write(to: URL(fileURLWithPath: inbox + "/\(title).wav"))
    }

    /// A stenod with Alice, who signs in to the double from the CLI (its first sync done).
    func signedIn(to double: GraphDouble) throws -> TestDaemon {
        let daemon = try TestDaemon(config: GraphEndToEndTests.config)
        #expect(try steno(daemon, ["users", "add", "alice", "--email", Self.alice]).status == 0)
        let signIn = try steno(daemon, [
            "accounts", "add", "graph", "--client-id", "steno-test-client", "--authority", double.baseURL.absoluteString,
            "--graph-url", double.graphURL.absoluteString, "--owner", "alice", "--wait",
        ])
        #expect(signIn.status == 0, "\(signIn.stdout)\n\(signIn.stderr)")
        return daemon
    }

    func calendars(_ daemon: TestDaemon) throws -> [CalendarSummary] {
        let listed = try steno(daemon, ["calendars", "--json"])
        #expect(listed.status == 0, "\(listed.stderr)")
        return (try? JSONValueDecoder().decode([CalendarSummary].self, from: try JSONValue.parse(listed.stdout))) ?? []
    }

    @Test func threeCalendarsMirroredOneDisabledAndEnabledAgain() throws {
        let double = try GraphDouble()
        defer { double.shutdown() }
        double.scriptDeviceFlow(.init(pendingPolls: 1, outcome: .approve(user: Self.alice)), interval: 1)
        double.addCalendar(GraphDouble.Calendar(id: "cal-team", name: "Team"))
        double.addCalendar(GraphDouble.Calendar(id: "cal-bob", name: "Calendar", owner: "bob@contoso.com", canEdit: false))
        let planning = Self.meeting("planning", "Planning", hoursBack: 30, organizer: Self.alice)
        let retro = Self.meeting("retro", "Team retro", hoursBack: 27, organizer: Self.alice)
        let review = Self.meeting("review", "Bob's review", hoursBack: 24, organizer: "bob@contoso.com")
        double.put(planning)
        double.put(retro, calendar: "cal-team")
        double.put(review, calendar: "cal-bob")

        let daemon = try signedIn(to: double)
        defer { daemon.shutdown() }

        // All three calendars mirrored, one event each.
        let mirrored = try calendars(daemon)
        #expect(mirrored.count == 3 && mirrored.allSatisfy { $0.enabled && $0.events == 1 }, "\(mirrored)")
        let team = try #require(mirrored.first { $0.remoteID == "me/calendars/cal-team" }, "\(mirrored)")
        #expect(mirrored.contains { $0.remoteID == "me" } && mirrored.contains { $0.name.contains("shared by bob@contoso.com") })
        let table = try steno(daemon, ["calendars"])
        #expect(table.stdout.contains("STATE") && table.stdout.contains("enabled"), "\(table.stdout)")

        // A recording in each meeting, each linked.
        try record(planning, title: "planning-notes", seed: 11, daemon: daemon)
        try record(retro, title: "retro-notes", seed: 12, daemon: daemon)
        try record(review, title: "review-notes", seed: 13, daemon: daemon)
        let linked = try GraphEndToEndTests().waitForLinks(daemon, timeout: 120) { $0.filter { $0.state == .linked }.count == 3 }
        #expect(linked.filter { $0.state == .linked }.count == 3, "\(linked)")
        let meetings = Dictionary(linked.compactMap { link in link.recordingTitle.map { ($0, link.meeting) } }, uniquingKeysWith: { first, _ in first })

        // The Team calendar disabled: its link is orphaned (cache kept), the others untouched.
        let disabled = try steno(daemon, ["calendars", "disable", String(team.id)])
        #expect(disabled.status == 0 && disabled.stdout.contains("disabled calendar \(team.id)"), "\(disabled.stdout)\n\(disabled.stderr)")
        let orphaned = try GraphEndToEndTests().waitForLinks(daemon, timeout: 120) { links in
            links.contains { $0.recordingTitle == "retro-notes" && $0.state == .orphaned }
        }
        let retroLink = try #require(orphaned.first { $0.recordingTitle == "retro-notes" }, "\(orphaned)")
        #expect(retroLink.state == .orphaned && retroLink.meetingTitle == "Team retro", "\(retroLink)")
        for title in ["planning-notes", "review-notes"] {
            #expect(orphaned.contains { $0.recordingTitle == title && $0.state == .linked && $0.meeting == meetings[title] ?? nil }, "\(orphaned)")
        }
        let afterDisable = try calendars(daemon)
        #expect(afterDisable.contains { $0.id == team.id && !$0.enabled && $0.events == 0 }, "\(afterDisable)")

        // Not read while disabled; the others still are.
        double.resetCounters()
        let sync = try steno(daemon, ["sync", "--wait"])
        #expect(sync.status == 0, "\(sync.stdout)\n\(sync.stderr)")
        #expect(!double.requests.contains { $0.uri.contains("cal-team") })
        #expect(double.requests.contains { $0.uri.contains("/me/calendars/cal-bob/calendarView/delta") })
        #expect(try calendars(daemon).contains { $0.id == team.id && !$0.enabled && $0.events == 0 })

        // Enabled again: mirrored from the start, and the orphaned link finds its meeting again.
        let enabled = try steno(daemon, ["calendars", "enable", String(team.id)])
        #expect(enabled.status == 0 && enabled.stdout.contains("enabled calendar \(team.id)"), "\(enabled.stdout)\n\(enabled.stderr)")
        let back = try PostgresDaemonsEndToEndTests.waitUntil {
            try calendars(daemon).contains { $0.id == team.id && $0.enabled && $0.events == 1 }
        }
        let listed = try calendars(daemon)
        #expect(back, "\(listed)")
        #expect(double.requests.contains { $0.uri.hasPrefix("/v1.0/me/calendars/cal-team/calendarView/delta?startDateTime=") })
        let relinked = try GraphEndToEndTests().waitForLinks(daemon, timeout: 120) { links in
            links.contains { $0.recordingTitle == "retro-notes" && $0.state == .linked }
        }
        #expect(relinked.contains { $0.recordingTitle == "retro-notes" && $0.state == .linked && $0.meeting == meetings["retro-notes"] ?? nil },
                "\(relinked)")
    }
}

extension GraphCalendarsEndToEndTests {
    /// Recordings 13 months and 3 years back link to meetings only Graph holds at those dates
    /// (in the default calendar and in a shared one): the daemon asks each calendar's
    /// `calendarView` for the spans around them, each span once.
    @Test func oldRecordingsLinkThroughGraphHistory() throws {
        let double = try GraphDouble()
        defer { double.shutdown() }
        double.scriptDeviceFlow(.init(pendingPolls: 1, outcome: .approve(user: Self.alice)), interval: 1)
        double.addCalendar(GraphDouble.Calendar(id: "cal-bob", name: "Calendar", owner: "bob@contoso.com", canEdit: false))
        let month13 = Self.meeting("budget", "Budget review", hoursBack: 395 * 24, organizer: Self.alice)
        let month13Shared = Self.meeting("bob-retro", "Bob's retro", hoursBack: 395 * 24 - 3, organizer: "bob@contoso.com")
        let year3 = Self.meeting("kickoff", "Kickoff", hoursBack: 1095 * 24, organizer: Self.alice)
        double.put(month13)
        double.put(year3)
        double.put(month13Shared, calendar: "cal-bob")

        let daemon = try signedIn(to: double)
        defer { daemon.shutdown() }
        // Outside the mirrored window: nothing of them is mirrored by the sync.
        let synced = try calendars(daemon)
        #expect(synced.count == 2 && synced.allSatisfy { $0.events == 0 }, "\(synced)")

        try record(month13, title: "budget-notes", seed: 21, daemon: daemon)
        try record(month13Shared, title: "retro-notes", seed: 22, daemon: daemon)
        try record(year3, title: "kickoff-notes", seed: 23, daemon: daemon)
        let expected = ["budget-notes": "Budget review", "retro-notes": "Bob's retro", "kickoff-notes": "Kickoff"]
        let linked = try GraphEndToEndTests().waitForLinks(daemon, timeout: 180) { links in
            expected.allSatisfy { title, meeting in links.contains { $0.recordingTitle == title && $0.state == .linked && $0.meetingTitle == meeting } }
        }
        for (title, meeting) in expected {
            #expect(linked.contains { $0.recordingTitle == title && $0.state == .linked && $0.meetingTitle == meeting }, "\(title): \(linked)")
        }
        // Each calendar asked once per span: no span of a calendar asked twice.
        let asked = double.requests.filter { $0.uri.contains("/calendarView?") }.map { request -> String in
            let components = URLComponents(string: "http://double" + request.uri)
            return (components?.path ?? "") + "|" + (components?.queryItems?.first { $0.name == "startDateTime" }?.value ?? "")
        }
        #expect(!asked.isEmpty && asked.count == Set(asked).count, "\(asked)")
        #expect(asked.contains { $0.hasPrefix("/v1.0/me/calendars/cal-bob/calendarView|") } && asked.contains { $0.hasPrefix("/v1.0/me/calendarView|") })
    }
}
