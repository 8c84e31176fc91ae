import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// A hostile member writing events into his own calendar, against a real stenod, connecting
/// as his own uid: the UID of a meeting he is not invited to gives him a meeting of his own and
/// nothing of the real one; events naming another member as organizer capture none of her
/// recordings, at ingest or at the nightly revalidation.
@Suite(
    "Calendar data cannot widen what a member sees", .blocksThreads, .serialized,
    .enabled(if: TestRequirement.runs(when: canSwitchUsers), "needs root and setpriv to connect as other uids"))
struct CalendarTrustEndToEndTests {
    let day = ICalendarText.yesterday

    func at(_ hour: Double) -> Date { day.addingTimeInterval(hour * 3600) }

    func event(_ uid: String, _ title: String, _ hour: Double, organizer: String, attendees: [String]) -> [String] {
        ICalendarText.event(
            uid: uid, title: title, start: at(hour), end: at(hour + 1), organizer: organizer,
            attendees: attendees.map { "PARTSTAT=ACCEPTED;CN=\($0.capitalized):mailto:\($0)@example.com" })
    }

    func command(_ daemon: TestDaemon, as uid: UInt32, _ arguments: [String]) throws -> CommandResult {
        try runAs(uid: uid, try TestDaemon.executable(named: "steno"), ["--socket", daemon.socketPath] + arguments)
    }

    /// Bob's events: a copy of carol's customer call under its UID, and events naming alice as
    /// organizer (accepted) at the times of her recordings; from an ICS file or pushed by his phone.
    enum Source: String, CaseIterable, Sendable { case ics, device }

    func bobsEvents() -> [(uid: String, title: String, hour: Double, organizer: String, attendees: [String])] {
        [
            ("customer-call-1", "bob's copy", 10, "carol@example.com", ["bob"]),
            ("planted-0", "PLANTED 0", 16, "alice@example.com", ["alice", "bob"]),
            ("planted-1", "PLANTED 1", 10, "alice@example.com", ["alice", "bob"]),
        ]
    }

    func addBobsEvents(_ daemon: TestDaemon, from source: Source) async throws {
        switch source {
        case .ics:
            let bobs = daemon.root + "/bob.ics"
            try ICalendarText.calendar(bobsEvents().flatMap { event($0.uid, $0.title, $0.hour, organizer: $0.organizer, attendees: $0.attendees) })
                .write(toFile: bobs, atomically: true, encoding: .utf8)
            let added = try steno(daemon, ["accounts", "add", "ics", bobs, "--owner", "bob", "--wait"])
            #expect(added.status == 0, "\(added.stderr)")
        case .device:
            let added = try command(daemon, as: secondUID, ["devices", "add", "--label", "bobs-phone", "--time-zone", "UTC", "--json"])
            try #require(added.status == 0, "\(added.stderr)")
            let token = try JSONValueDecoder().decode(DeviceAddResult.self, from: try JSONValue.parse(added.stdout)).token
            let events: [JSONValue] = bobsEvents().map { planted in
                let (date, start, end) = DeviceAgentEndToEndTests.utcParts(at(planted.hour))
                return [
                    "externalId": .string("P-" + planted.uid), "externalCalendarId": "BOB", "title": .string(planted.title),
                    "date": .string(date), "startTime": .string(start), "endTime": .string(end), "externalUpdatedAt": 1,
                    "calendarItemExternalIdentifier": .string(planted.uid), "organizer": ["email": .string(planted.organizer)],
                    "attendees": .array(planted.attendees.map { ["email": .string("\($0)@example.com"), "status": "accepted"] }),
                ]
            }
            let pushed = try await DeviceAgentHTTP(daemon: daemon).post("/sync/apple/events/upsert", token: token, json: ["events": .array(events)])
            #expect(pushed.json["counts"]?["ok"]?.intValue == 3, "\(pushed.json)")
        }
    }

    @Test(arguments: Source.allCases)
    func aMembersOwnEventsNeitherJoinNorCaptureOthersMeetings(source: Source) async throws {
        let daemon = try sharedSocketDaemon(
            extraConfig: "[watcher]\nsettle_seconds = 0.2\n[device_agent]\nlisten = \"127.0.0.1:0\"\n")
        defer { daemon.shutdown() }
        for (name, uid) in [("alice", otherUID), ("bob", secondUID)] {
            #expect(try steno(daemon, ["users", "add", name, "--email", "\(name)@example.com", "--uid", String(uid)]).status == 0)
        }
        #expect(try steno(daemon, ["users", "add", "carol", "--email", "carol@example.com"]).status == 0)
        // Carol organises a private customer call with alice.
        let carols = daemon.root + "/carol.ics"
        try ICalendarText.calendar(event("customer-call-1", "Customer call", 10, organizer: "carol@example.com", attendees: ["alice"]))
            .write(toFile: carols, atomically: true, encoding: .utf8)
        let added = try steno(daemon, ["accounts", "add", "ics", carols, "--owner", "carol", "--wait"])
        #expect(added.status == 0, "\(added.stderr)")
        // Bob knows its UID; he also plants events naming alice as organizer, accepted, at the
        // times of her recordings.
        try await addBobsEvents(daemon, from: source)
        try VisibilityEndToEndTests().drop(daemon, owner: "alice", "customer-notes", at: at(10.02), seed: 21)
        try VisibilityEndToEndTests().drop(daemon, owner: "alice", "solo-notes", at: at(16.02), seed: 22)

        let client = try daemon.client()
        func links() throws -> [LinkSummary] { try client.call(StenoMethods.linksList, LinkListParams(limit: 100)).items }
        let settled = try poll(timeout: 60, links) { items in
            items.count == 2 && items.allSatisfy { $0.state != .pending } && items.contains { $0.state == .linked }
        }
        try #require(settled.count == 2, "\(settled)")
        func check(_ when: String) throws {
            let current = try links()
            let call = try #require(current.first { $0.recordingTitle == "customer-notes" })
            let solo = try #require(current.first { $0.recordingTitle == "solo-notes" })
            #expect(call.state == .linked && call.meetingTitle == "Customer call", "\(when): \(call)")
            #expect(solo.state == .unlinked && solo.meeting == nil, "\(when): a planted event captured it: \(solo)")
            let meeting = try #require(call.meeting)
            // Bob sees his own copy, never carol's meeting, its attendees or alice's recordings.
            let listed = try command(daemon, as: secondUID, ["meetings", "--json"] + everyMeeting)
            #expect(listed.status == 0, "\(listed.stderr)")
            let titles = try JSONValue.parse(listed.stdout).arrayValue?.compactMap { $0["title"]?.stringValue } ?? []
            #expect(titles.contains("bob's copy") && !titles.contains("Customer call"), "\(when): \(titles)")
            for arguments in [["meetings", "show", String(meeting)], ["attendees", String(meeting)], ["recordings", "show", String(call.recording)]] {
                let result = try command(daemon, as: secondUID, arguments)
                #expect(result.status == 4, "\(when): bob ran \(arguments): \(result.status) \(result.stdout)")
            }
            let recordings = try command(daemon, as: secondUID, ["recordings", "--json"])
            #expect(recordings.status == 0 && !recordings.stdout.contains("notes"), "\(when): \(recordings.stdout)")
            // Alice's meeting keeps carol's title and attendees.
            let shown = try command(daemon, as: otherUID, ["attendees", String(meeting), "--json"])
            #expect(shown.status == 0 && !shown.stdout.contains("bob@"), "\(when): \(shown.stdout)")
        }
        try check("after ingest")
        let revalidated = try steno(daemon, ["revalidate", "--wait"])
        #expect(revalidated.status == 0, "\(revalidated.stderr)")
        try check("after revalidation")
    }
}
