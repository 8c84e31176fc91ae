import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// Two members connected under two uids, and an admin: each sees exactly the recordings,
/// meetings, attendees, links and search hits they may see: a member their own recordings, the
/// meetings they organised, attended or hold in their calendars, and the recordings linked to
/// those; an admin everything.
@Suite("Visibility end to end", .blocksThreads, .serialized, .enabled(if: TestRequirement.runs(when: canSwitchUsers), "needs root and setpriv to connect as other uids"))
struct VisibilityEndToEndTests {
    static let config = """
        [watcher]
        settle_seconds = 0.2
        """

    let day = ICalendarText.yesterday

    func at(_ hour: Double) -> Date { day.addingTimeInterval(hour * 3600) }

    /// Carol's calendar: a meeting she organises with alice and bob, one she organises with bob,
    /// one she holds alone. Each is the organizer's own copy, so it speaks for whom it invites.
    func calendar() -> String {
        func event(_ uid: String, _ title: String, _ hour: Double, organizer: String, attendees: [String]) -> [String] {
            ICalendarText.event(
                uid: uid, title: title, start: at(hour), end: at(hour + 1), organizer: organizer,
                attendees: attendees.map { "PARTSTAT=ACCEPTED;CN=\($0.capitalized):mailto:\($0)@example.com" })
        }
        return ICalendarText.calendar(
            event("m1", "Roadmap with Bob", 10, organizer: "carol@example.com", attendees: ["alice", "bob"])
                + event("m2", "Hiring with Bob", 14, organizer: "carol@example.com", attendees: ["bob"])
                + event("m3", "Board prep", 16, organizer: "carol@example.com", attendees: []))
    }

    func drop(_ daemon: TestDaemon, owner: String, _ name: String, at start: Date, seed: Int) throws {
        let folder = daemon.inboxDirectory + "/" + owner
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data(#"{"recordedAt": "\#(ISO8601DateFormatter().string(from: start))", "title": "\#(name)"}"#.utf8)
            .write(to: URL(fileURLWithPath: "\(folder)/\(name).json"))
        try IngestionEndToEndTests.wav(seed: seed).write(to: URL(fileURLWithPath: "\(folder)/\(name).wav"))
    }

    /// `steno … --json` as `uid` (nil: root, an admin), decoded.
    func json<T: Decodable>(_ type: T.Type, _ daemon: TestDaemon, as uid: UInt32?, _ arguments: [String]) throws -> T {
        let result = try command(daemon, as: uid, arguments + ["--json"])
        try #require(result.status == 0, "steno \(arguments) as \(uid.map(String.init) ?? "root"): \(result.stderr)")
        return try JSONValueDecoder().decode(T.self, from: try JSONValue.parse(result.stdout))
    }

    func command(_ daemon: TestDaemon, as uid: UInt32?, _ arguments: [String]) throws -> CommandResult {
        guard let uid else { return try steno(daemon, arguments) }
        return try runAs(uid: uid, try TestDaemon.executable(named: "steno"), ["--socket", daemon.socketPath] + arguments)
    }

    @Test func twoMembersAndAnAdminSeeExactlyWhatTheRulesAllow() throws {
        let daemon = try sharedSocketDaemon(extraConfig: Self.config)
        defer { daemon.shutdown() }
        for (name, uid) in [("alice", otherUID), ("bob", secondUID)] {
            #expect(try steno(daemon, ["users", "add", name, "--email", "\(name)@example.com", "--uid", String(uid)]).status == 0)
        }
        #expect(try steno(daemon, ["users", "add", "carol", "--email", "carol@example.com"]).status == 0)
        let source = daemon.root + "/carol.ics"
        try calendar().write(toFile: source, atomically: true, encoding: .utf8)
        let added = try steno(daemon, ["accounts", "add", "ics", source, "--owner", "carol", "--wait"])
        #expect(added.status == 0, "\(added.stderr)")

        try drop(daemon, owner: "alice", "roadmap-notes", at: at(10.1), seed: 11)
        try drop(daemon, owner: "bob", "hiring-notes", at: at(14.1), seed: 12)
        try drop(daemon, owner: "carol", "board-notes", at: at(16.1), seed: 13)
        let client = try daemon.client()
        let linked = try poll(timeout: 60, { try client.call(StenoMethods.linksList, LinkListParams(limit: 100)).items.filter { $0.state == .linked } }) {
            $0.count == 3
        }
        try #require(linked.count == 3, "\(linked)")
        let meetings = try json([MeetingSummary].self, daemon, as: nil, ["meetings"] + everyMeeting)
        func meeting(_ title: String) throws -> Int64 { try #require(meetings.first { $0.title == title }?.id) }
        let (m1, m2, m3) = (try meeting("Roadmap with Bob"), try meeting("Hiring with Bob"), try meeting("Board prep"))
        let recordings = try json([Recording].self, daemon, as: nil, ["recordings"])
        func recording(_ title: String) throws -> Int64 { try #require(recordings.first { $0.title == title }?.id) }
        let (r1, r2, r3) = (try recording("roadmap-notes"), try recording("hiring-notes"), try recording("board-notes"))

        // Who sees what: alice attends m1; bob attends m1 and m2 (and so sees alice's recording
        // of m1); carol's own meeting and recording stay hers; root is an admin.
        let expected: [(uid: UInt32?, meetings: Set<Int64>, recordings: Set<Int64>)] = [
            (otherUID, [m1], [r1]),
            (secondUID, [m1, m2], [r1, r2]),
            (nil, [m1, m2, m3], [r1, r2, r3]),
        ]
        for (uid, visibleMeetings, visibleRecordings) in expected {
            let who = uid.map { "uid \($0)" } ?? "root"
            #expect(Set(try json([MeetingSummary].self, daemon, as: uid, ["meetings"] + everyMeeting).map(\.id)) == visibleMeetings, "\(who)")
            #expect(Set(try json([Recording].self, daemon, as: uid, ["recordings"]).map(\.id)) == visibleRecordings, "\(who)")
            for id in [m1, m2, m3] {
                let show = try command(daemon, as: uid, ["meetings", "show", String(id)])
                let attendees = try command(daemon, as: uid, ["attendees", String(id)])
                #expect((show.status == 0) == visibleMeetings.contains(id), "\(who) meetings show \(id): \(show.status)")
                #expect((attendees.status == 0) == visibleMeetings.contains(id), "\(who) attendees \(id): \(attendees.status)")
                if !visibleMeetings.contains(id) { #expect(show.status == 4 && attendees.status == 4, "not found, not forbidden") }
            }
            for id in [r1, r2, r3] {
                let show = try command(daemon, as: uid, ["recordings", "show", String(id)])
                #expect((show.status == 0) == visibleRecordings.contains(id), "\(who) recordings show \(id): \(show.status)")
            }
            let hits = try json([SearchHit].self, daemon, as: uid, ["search", "notes"])
            #expect(Set(hits.filter { $0.kind == "recording" }.map(\.id)) == visibleRecordings, "\(who) search")
            let titles = try json([SearchHit].self, daemon, as: uid, ["search", "with"])
            #expect(Set(titles.filter { $0.kind == "meeting" }.map(\.id)) == visibleMeetings.intersection([m1, m2]), "\(who) search")
            let withBob = try json([MeetingSummary].self, daemon, as: uid, ["meetings", "--with", "bob@example.com"] + everyMeeting)
            #expect(Set(withBob.map(\.id)) == visibleMeetings.intersection([m1, m2]), "\(who) meetings --with")
        }

        // A member may not link their recording to a meeting they cannot see, nor touch another's link.
        let foreign = try command(daemon, as: otherUID, ["link", String(r1), String(m3)])
        #expect(foreign.status == 4, "\(foreign.stderr)")
        let othersLink = try command(daemon, as: otherUID, ["unlink", String(r2)])
        #expect(othersLink.status == 4, "\(othersLink.stderr)")
        let othersReset = try command(daemon, as: otherUID, ["links", "reset", String(r2)])
        #expect(othersReset.status == 4, "\(othersReset.stderr)")
        let explain = try command(daemon, as: secondUID, ["recordings", "explain", String(r3)])
        #expect(explain.status == 4)
        // Bob sees alice's recording of their meeting, and which meeting it is…
        let shown = try command(daemon, as: secondUID, ["recordings", "show", String(r1)])
        #expect(shown.status == 0 && shown.stdout.contains("Roadmap with Bob at ")
                && shown.stdout.contains("(meeting \(m1); linked)"), "\(shown.stdout)")
        let shownJSON = try json(Recording.self, daemon, as: secondUID, ["recordings", "show", String(r1)])
        #expect(shownJSON.meeting?.id == m1 && shownJSON.meeting?.title == "Roadmap with Bob")
        // …but its link stays alice's to change and explain.
        for arguments in [
            ["unlink", String(r1)], ["links", "reset", String(r1)], ["recordings", "explain", String(r1)], ["links", "history", String(r1)],
        ] {
            let result = try command(daemon, as: secondUID, arguments)
            #expect(result.status == 5 && result.stderr.contains("belongs to alice"), "\(arguments): \(result.status) \(result.stderr)")
        }
        #expect(try command(daemon, as: otherUID, ["links", "history", String(r1)]).status == 0)
        let ownReset = try command(daemon, as: otherUID, ["links", "reset", String(r1)])
        #expect(ownReset.status == 0 && ownReset.stdout.contains("Roadmap with Bob"), "\(ownReset.stdout) \(ownReset.stderr)")
    }
}
