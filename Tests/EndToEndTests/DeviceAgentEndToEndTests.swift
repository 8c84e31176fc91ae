import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// The device agent against a real stenod listening on 127.0.0.1: the tests play an iPhone.
@Suite("Device agent end to end", .blocksThreads, .serialized)
struct DeviceAgentEndToEndTests {
    static let config = """
        log_level = "debug"
        [watcher]
        settle_seconds = 0.2
        [calendars]
        sync_interval_minutes = 600
        """

    /// A daemon whose socket caller (root) is the user alice; `deviceAgent` adds lines to
    /// its `[device_agent]` section.
    static func daemon(_ deviceAgent: String = "") throws -> TestDaemon {
        let daemon = try TestDaemon(config: config + "\n[device_agent]\nlisten = \"127.0.0.1:0\"\n" + deviceAgent)
        _ = try daemon.client().call(
            StenoMethods.usersAdd, UserAddParams(name: "alice", emails: ["alice@example.com"], uids: [getuid()], role: .admin))
        return daemon
    }

    /// The fields a phone sent, to compare with what the feed gives back.
    static func essentials(_ event: JSONValue) -> [String] {
        let attendees = (event["attendees"]?.arrayValue ?? []).compactMap { $0["email"]?.stringValue }.sorted().joined(separator: ",")
        return ["externalId", "externalCalendarId", "title", "date", "startTime", "endTime", "endDate", "timeZone"]
            .map { event[$0]?.stringValue ?? "-" } + [attendees]
    }

    @Test func aPairedPhoneIsMirroredExactlyAndUnchangedPushesWriteNothing() async throws {
        let daemon = try Self.daemon()
        let http = try DeviceAgentHTTP(daemon: daemon)
        let (token, device) = try await http.pair(daemon)
        #expect(device["timeZone"]?.stringValue == "Europe/Berlin")
        let events = PhoneEvents.sample(count: 500)
        let pushed = try await http.post("/sync/apple/events/upsert", token: token, json: ["events": .array(events)])
        #expect(pushed.status == 200)
        #expect(pushed.json["counts"]?["ok"]?.intValue == 500, "\(pushed.json)")

        let mirrored = try await http.feed("/sync/apple/events/changes", token: token)
        #expect(mirrored.events.count == 500)
        let sent = Dictionary(uniqueKeysWithValues: events.map { ($0["externalId"]?.stringValue ?? "", Self.essentials($0)) })
        let held = Dictionary(uniqueKeysWithValues: mirrored.events.map { ($0["externalId"]?.stringValue ?? "", Self.essentials($0)) })
        #expect(held == sent)
        #expect(mirrored.events.allSatisfy { $0["provider"]?.stringValue == "apple" && $0["device"] == device["id"] })

        // Again, unchanged: every event says so, and the feed has nothing after its serverTime.
        let eventsBefore = try daemon.client().call(StenoMethods.systemStatus).counts["events"]
        let again = try await http.post("/sync/apple/events/upsert", token: token, json: ["events": .array(events)])
        #expect(again.json["counts"]?["unchanged"]?.intValue == 500, "\(again.json)")
        let afterAgain = try await http.feed("/sync/apple/events/changes", token: token, since: mirrored.serverTime)
        #expect(afterAgain.events.isEmpty && afterAgain.serverTime == mirrored.serverTime)
        #expect(try daemon.client().call(StenoMethods.systemStatus).counts["events"] == eventsBefore)

        // Ten edits and five deletions: exactly those fifteen come next.
        var edits = (0..<10).map { index -> JSONValue in
            var event = events[index * 7].objectValue ?? [:]
            event["title"] = .string("Edited \(index)")
            event["externalUpdatedAt"] = .int(50_000)
            return .object(event)
        }
        edits += (0..<5).map { ["externalId": .string("EK-\(400 + $0)"), "deleted": true, "externalUpdatedAt": .int(60_000)] }
        let changed = try await http.post("/sync/apple/events/upsert", token: token, json: ["events": .array(edits)])
        #expect(changed.json["counts"]?["ok"]?.intValue == 15, "\(changed.json)")
        let changes = try await http.feed("/sync/apple/events/changes", token: token, since: mirrored.serverTime)
        #expect(changes.events.count == 15)
        #expect(changes.events.filter { ($0["deletedAt"]?.intValue ?? 0) > 0 }.count == 5)
        let live = try await http.feed("/sync/apple/events/changes", token: token, includeDeleted: false)
        #expect(live.events.count == 495)
        #expect(live.events.filter { $0["title"]?.stringValue?.hasPrefix("Edited") == true }.count == 10)

        // The token never reaches the log; each request has its debug line.
        #expect(!daemon.log.contains(token))
        #expect(daemon.log.contains("device agent request"))
        let devices = try daemon.client().call(StenoMethods.devicesList, PageParams())
        #expect(devices.items.first?.events == 495 && devices.items.first?.lastContactAt != nil)
        #expect(daemon.stop() == 0)
    }

    @Test func aPhoneCopyAndAnICSCopyAreOneMeetingAndLinksFollowThePhone() async throws {
        let daemon = try Self.daemon()
        let http = try DeviceAgentHTTP(daemon: daemon)
        let (token, _) = try await http.pair(daemon, timeZone: "UTC")
        let client = try daemon.client()
        let start = ICalendarText.yesterday.addingTimeInterval(10 * 3600)
        // The same meeting in an ICS file, with the UID an Exchange-backed phone calendar reports.
        let icsPath = daemon.root + "/shared.ics"
        try ICalendarText.calendar(
            ICalendarText.event(uid: "shared-1@example.com", title: "Board", start: start, end: start.addingTimeInterval(3600))
        ).write(toFile: icsPath, atomically: true, encoding: .utf8)
        _ = try client.call(StenoMethods.accountsAdd, AccountAddParams(provider: .ics, source: icsPath))
        let local = Self.utcParts(start)
        let later = Self.utcParts(start.addingTimeInterval(3 * 3600))
        func event(_ id: String, _ title: String, _ parts: (String, String, String), uid: String? = nil, stamp: Int64 = 1) -> JSONValue {
            var object: [String: JSONValue] = [
                "externalId": .string(id), "externalCalendarId": "EXCHANGE", "title": .string(title), "date": .string(parts.0),
                "startTime": .string(parts.1), "endTime": .string(parts.2), "externalUpdatedAt": .int(stamp),
            ]
            if let uid { object["calendarItemExternalIdentifier"] = .string(uid) }
            return .object(object)
        }
        let pushed = try await http.post(
            "/sync/apple/events/upsert", token: token,
            json: ["events": [event("P-BOARD", "Board", local, uid: "shared-1@example.com"), event("P-1on1", "1:1 Carol", later)]])
        #expect(pushed.json["counts"]?["ok"]?.intValue == 2)
        let meetings = try poll(
            timeout: 60, { try client.call(StenoMethods.meetingsList, MeetingListParams(limit: 100)).items },
            until: { items in items.contains { $0.title == "Board" } && items.contains { $0.title == "1:1 Carol" } })
        #expect(meetings.filter { $0.title == "Board" }.count == 1, "\(meetings)")

        // A recording made during the 1:1 links to the phone's event.
        let folder = daemon.inboxDirectory + "/alice"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let recordedAt = ISO8601DateFormatter().string(from: start.addingTimeInterval(3 * 3600 + 60))
        try Data(#"{"recordedAt": "\#(recordedAt)"}"#.utf8).write(to: URL(fileURLWithPath: folder + "/one-on-one.json"))
        try IngestionEndToEndTests.wav(seed: 3).write(to: URL(fileURLWithPath: folder + "/one-on-one.wav"))
        func link() throws -> LinkSummary? { try client.call(StenoMethods.linksList, LinkListParams(limit: 10)).items.first }
        let linked = try poll(timeout: 60, link, until: { $0?.state == .linked })
        #expect(linked?.state == .linked && linked?.meetingTitle == "1:1 Carol", "\(String(describing: linked))")

        // Deleted on the phone: the link is orphaned. Back on the phone: linked again.
        _ = try await http.post(
            "/sync/apple/events/upsert", token: token, json: ["externalId": "P-1on1", "deleted": true, "externalUpdatedAt": 2])
        let orphaned = try poll(timeout: 60, link, until: { $0?.state == .orphaned })
        #expect(orphaned?.state == .orphaned)
        _ = try await http.post("/sync/apple/events/upsert", token: token, json: event("P-1on1", "1:1 Carol", later, stamp: 3))
        let back = try poll(timeout: 60, link, until: { $0?.state == .linked })
        #expect(back?.state == .linked)
    }

    static func utcParts(_ date: Date) -> (String, String, String) {
        let formatter = DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        let day = formatter.string(from: date)
        formatter.dateFormat = "HH:mm"
        return (day, formatter.string(from: date), formatter.string(from: date.addingTimeInterval(3600)))
    }

    /// Four writers push while a reader follows the feed for ten seconds: the reader ends with
    /// exactly the server's rows, and once caught up reads nothing twice.
    @Test func aReaderFollowingTheFeedMissesNoConcurrentWrite() async throws {
        let daemon = try Self.daemon()
        let http = try DeviceAgentHTTP(daemon: daemon)
        let (token, _) = try await http.pair(daemon)
        let deadline = ContinuousClock.now + .seconds(10)
        let writes = try await withThrowingTaskGroup(of: Int.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    var round = 0
                    while ContinuousClock.now < deadline, round < 100_000 {
                        round += 1
                        let batch: [JSONValue] = (0..<5).map { slot in
                            [
                                "externalId": .string("W\(writer)-\((round * 5 + slot) % 40)"), "externalCalendarId": "CAL",
                                "title": .string("w\(writer) r\(round)"), "date": "2026-11-25", "startTime": "10:00", "endTime": "11:00",
                                "externalUpdatedAt": .int(Int64(round)),
                            ]
                        }
                        let answer = try await http.post("/sync/apple/events/upsert", token: token, json: ["events": .array(batch)])
                        guard answer.status == 200 else { throw TestDaemonError("push failed: \(answer.json)") }
                    }
                    return round
                }
            }
            var since: Int64 = 0
            var reader: [String: String] = [:]
            var reads = 0
            while ContinuousClock.now < deadline, reads < 1_000_000 {
                reads += 1
                let page = try await http.feed("/sync/apple/events/changes", token: token, since: since)
                for event in page.events { reader[event["externalId"]?.stringValue ?? ""] = event["title"]?.stringValue }
                since = page.serverTime
            }
            var total = 0
            for try await rounds in group { total += rounds }
            // Caught up once more, then nothing repeats.
            let last = try await http.feed("/sync/apple/events/changes", token: token, since: since)
            for event in last.events { reader[event["externalId"]?.stringValue ?? ""] = event["title"]?.stringValue }
            let quiet = try await http.feed("/sync/apple/events/changes", token: token, since: last.serverTime)
            #expect(quiet.events.isEmpty)
            let server = try await http.feed("/sync/apple/events/changes", token: token)
            #expect(reader == Dictionary(uniqueKeysWithValues: server.events.map { ($0["externalId"]?.stringValue ?? "", $0["title"]?.stringValue) }))
            #expect(reader.count == 160)
            return total
        }
        #expect(writes > 20)
    }
}
