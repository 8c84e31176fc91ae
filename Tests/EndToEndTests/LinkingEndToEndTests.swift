import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// Linking against a real Radicale and a real daemon: recordings dropped, the calendar synced
/// through CalDAV, links made; then the calendar changes under them (an event re-created under
/// a new href, deleted for good, moved by three hours) and the links follow.
@Suite("Linking end to end against Radicale", .blocksThreads, .serialized, .enabled(if: TestRequirement.runs(when: RadicaleServer.isInstalled), "needs `pip install radicale`"))
struct LinkingEndToEndTests {
    static let config = """
        [watcher]
        settle_seconds = 0.2
        [jobs]
        workers = 2
        [calendars]
        sync_interval_minutes = 600
        # Alice is a member; Radicale listens on loopback.
        member_networks = ["127.0.0.1"]
        """

    let day = ICalendarText.yesterday

    func at(_ hour: Double) -> Date { day.addingTimeInterval(hour * 3600) }

    /// A CalDAV client for the test's side of the story: curl with Basic auth.
    struct RadicaleCalendar {
        let server: RadicaleServer
        var collection: URL { server.collectionURL(user: "alice", name: "work") }

        func send(_ method: String, _ url: URL, body: String? = nil, contentType: String = "text/calendar; charset=utf-8") throws {
            var arguments = ["-sS", "-o", "/dev/null", "-w", "%{http_code}", "-u", "alice:secret", "-X", method, url.absoluteString]
            if let body { arguments += ["-H", "Content-Type: \(contentType)", "--data-binary", body] }
            let result = try runCommand("/usr/bin/curl", arguments)
            let status = Int(result.stdout) ?? 0
            guard (200..<300).contains(status) else {
                throw RadicaleServerError("\(method) \(url.absoluteString) → HTTP \(result.stdout) \(result.stderr)")
            }
        }

        func makeCalendar() throws {
            let body = """
                <?xml version="1.0" encoding="utf-8"?>
                <C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:set><D:prop>
                <D:displayname>Work</D:displayname></D:prop></D:set></C:mkcalendar>
                """
            try send("MKCALENDAR", collection, body: body, contentType: "application/xml; charset=utf-8")
        }

        func put(_ name: String, uid: String, title: String, start: Date, hours: Double = 1, organizer: String, attendees: [String]) throws {
            let event = ICalendarText.event(
                uid: uid, title: title, start: start, end: start.addingTimeInterval(hours * 3600), organizer: organizer, attendees: attendees)
            try send("PUT", collection.appendingPathComponent(name), body: ICalendarText.calendar(event))
        }

        func delete(_ name: String) throws { try send("DELETE", collection.appendingPathComponent(name)) }
    }

    /// Drops a short WAV with a sidecar naming its start time into alice's inbox folder.
    func drop(_ daemon: TestDaemon, _ name: String, at start: Date, seed: Int) throws {
        let folder = daemon.inboxDirectory + "/alice"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let formatter = ISO8601DateFormatter()
        try Data(#"{"recordedAt": "\#(formatter.string(from: start))"}"#.utf8).write(to: URL(fileURLWithPath: "\(folder)/\(name).json"))
        try IngestionEndToEndTests.wav(seed: seed).write(to: URL(fileURLWithPath: "\(folder)/\(name).wav"))
    }

    func links(_ client: StenoClient) throws -> [LinkSummary] {
        try client.call(StenoMethods.linksList, LinkListParams(limit: 100)).items
    }

    /// Polls (bounded) until the links satisfy `done`; returns the last answer.
    func waitForLinks(_ client: StenoClient, timeout: TimeInterval = 60, _ done: ([LinkSummary]) -> Bool) throws -> [LinkSummary] {
        try poll(timeout: timeout, { try links(client) }, until: done)
    }

    func sync(_ daemon: TestDaemon) throws {
        let result = try steno(daemon, ["sync", "--wait"])
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test func linksFollowTheCalendarWhenEventsAreRecreatedDeletedAndMoved() throws {
        let radicale = try RadicaleServer()
        defer { radicale.shutdown() }
        let calendar = RadicaleCalendar(server: radicale)
        try calendar.makeCalendar()
        let team = ["ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED;CN=Bob:mailto:bob@example.com",
            "ROLE=OPT-PARTICIPANT;PARTSTAT=TENTATIVE;CN=Carol:mailto:carol@example.com"]
        try calendar.put("review.ics", uid: "review", title: "Design review", start: at(10), organizer: "alice@example.com", attendees: team)
        try calendar.put("planning.ics", uid: "planning", title: "Planning", start: at(14), organizer: "alice@example.com", attendees: team)
        // Same slot as Planning, but alice has not answered: Planning wins while it is there.
        try calendar.put("budget.ics", uid: "budget", title: "Budget", start: at(14), organizer: "carol@example.com",
            attendees: ["PARTSTAT=NEEDS-ACTION;CN=Alice:mailto:alice@example.com"])
        try calendar.put("retro.ics", uid: "retro", title: "Retro", start: at(16), organizer: "alice@example.com", attendees: team)
        try calendar.put("one-on-one.ics", uid: "one-on-one", title: "1:1 Bob", start: at(18), hours: 0.5, organizer: "alice@example.com",
            attendees: [team[0]])

        let daemon = try TestDaemon(config: Self.config)
        defer { daemon.shutdown() }
        #expect(try steno(daemon, ["users", "add", "alice", "--email", "alice@example.com"]).status == 0)
        let passwordFile = daemon.root + "/caldav-password"
        try "secret\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
        let added = try steno(daemon, [
            "accounts", "add", "caldav", "--url", radicale.baseURL.absoluteString, "--user", "alice", "--password-file", passwordFile,
            "--owner", "alice", "--wait",
        ])
        #expect(added.status == 0, "\(added.stderr)")

        try drop(daemon, "review", at: at(10 + 5.0 / 60), seed: 1)
        try drop(daemon, "planning", at: at(14 + 5.0 / 60), seed: 2)
        try drop(daemon, "retro", at: at(16 + 5.0 / 60), seed: 3)
        try drop(daemon, "one-on-one", at: at(18 + 5.0 / 60), seed: 4)
        let client = try daemon.client()
        let first = try waitForLinks(client) { $0.count == 4 && $0.allSatisfy { $0.state == .linked } }
        try #require(first.count == 4 && first.allSatisfy { $0.state == .linked }, "\(first.map { ($0.recording, $0.state, $0.meetingTitle) })")
        let recordings = try IngestionEndToEndTests.recordings(daemon)
        func recording(_ name: String) throws -> Int64 {
            try #require(recordings.first { $0.paths.contains { $0.path.hasSuffix("/\(name).wav") } }?.id)
        }
        let review = try recording("review"), planning = try recording("planning"), retro = try recording("retro")
        let oneOnOne = try recording("one-on-one")
        func link(_ id: Int64, in list: [LinkSummary]) -> LinkSummary? { list.first { $0.recording == id } }
        #expect(link(review, in: first)?.meetingTitle == "Design review")
        #expect(link(planning, in: first)?.meetingTitle == "Planning")
        #expect(link(retro, in: first)?.meetingTitle == "Retro")
        #expect(link(oneOnOne, in: first)?.meetingTitle == "1:1 Bob")
        let reviewMeeting = try #require(link(review, in: first)?.meeting)
        let oneOnOneMeeting = try #require(link(oneOnOne, in: first)?.meeting)

        // The review is deleted and created again with the same UID under another href; the
        // 1:1 is deleted for good; Planning and Retro move by three hours.
        try calendar.delete("review.ics")
        try calendar.put("review-copy.ics", uid: "review", title: "Design review", start: at(10), organizer: "alice@example.com", attendees: team)
        try calendar.delete("one-on-one.ics")
        try calendar.put("planning.ics", uid: "planning", title: "Planning", start: at(17), organizer: "alice@example.com", attendees: team)
        try calendar.put("retro.ics", uid: "retro", title: "Retro", start: at(13), organizer: "alice@example.com", attendees: team)
        try sync(daemon)

        let after = try waitForLinks(client) { list in
            link(review, in: list)?.state == .linked && link(oneOnOne, in: list)?.state == .orphaned
                && link(planning, in: list)?.meetingTitle == "Budget" && link(retro, in: list)?.state != .linked
        }
        #expect(link(review, in: after)?.state == .linked)
        #expect(link(review, in: after)?.meeting == reviewMeeting, "the same UID is the same meeting")
        #expect(link(oneOnOne, in: after)?.state == .orphaned)
        #expect(link(oneOnOne, in: after)?.meeting == oneOnOneMeeting)
        #expect(link(planning, in: after)?.state == .linked)
        #expect(link(planning, in: after)?.meetingTitle == "Budget", "re-linked to the meeting that now covers the recording")
        let retroLink = link(retro, in: after)
        #expect(retroLink?.state != .linked && retroLink?.meeting == nil, "no meeting covers the recording any more: \(String(describing: retroLink))")

        // The orphan keeps its cached title and attendees.
        let orphans = try steno(daemon, ["links", "--orphaned"])
        #expect(orphans.status == 0 && orphans.stdout.contains("1:1 Bob"), "\(orphans.stdout)")
        let attendees = try client.call(StenoMethods.attendeesList, AttendeeListParams(id: oneOnOneMeeting)).items
        #expect(attendees.contains { $0.email == "bob@example.com" && $0.name == "Bob" })
        let history = try steno(daemon, ["links", "history", String(planning)])
        #expect(history.status == 0 && history.stdout.contains("the event moved by 180 min"), "\(history.stdout)")

        // The 1:1 comes back (same UID, new href): the nightly revalidation re-links the orphan.
        try calendar.put("one-on-one-again.ics", uid: "one-on-one", title: "1:1 Bob", start: at(18), hours: 0.5,
            organizer: "alice@example.com", attendees: [team[0]])
        try sync(daemon)
        let revalidated = try steno(daemon, ["revalidate", "--wait"])
        #expect(revalidated.status == 0, "\(revalidated.stderr)")
        let final = try links(client)
        #expect(link(oneOnOne, in: final)?.state == .linked)
        #expect(link(oneOnOne, in: final)?.meeting == oneOnOneMeeting)
        #expect(link(review, in: final)?.state == .linked && link(planning, in: final)?.meetingTitle == "Budget")
    }
}
