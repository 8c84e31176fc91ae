import Foundation
import StenoAPI
import StenoAgent
import StenoTesting
import StenoTestTraits
import Testing

/// The tests play an iPhone against a real stenod: paired with a code from `devices.pair`,
/// syncing both ways through the HTTP listener on 127.0.0.1, deletions both ways, and a
/// meeting Steno creates for a recording in the device's calendar coming back linked.
@Suite("Device agent end to end against stenod", .blocksThreads, .serialized)
struct AgentEndToEndTests {
    static let berlin = TestPhone.berlin
    static let newYork = TimeZone(identifier: "America/New_York") ?? .current

    /// Today's 00:00 in Berlin plus `hours`.
    static func at(_ hours: Double, daysFromToday days: Int = 0) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = berlin
        let midnight = calendar.startOfDay(for: Date())
        return (calendar.date(byAdding: .day, value: days, to: midnight) ?? midnight).addingTimeInterval(hours * 3600)
    }

    @discardableResult
    static func add(
        _ title: String, to phone: TestPhone, at start: Date, hours: Double = 1, allDay: Bool = false, zone: TimeZone = berlin,
        calendar: String = "CAL-WORK", attendees: [EventAttendee]? = nil
    ) async -> DeviceEvent {
        await phone.store.add(
            DeviceEvent(
                externalId: "", externalCalendarId: calendar, start: start, end: start.addingTimeInterval(hours * 3600), isAllDay: allDay,
                timeZone: zone, title: title, attendees: attendees))
    }

    @Test func aWrongPairingCodeIsRefusedAndARightOneGivesAToken() async throws {
        let server = try AgentTestDaemon()
        await #expect(throws: AgentClientError.self) {
            try await StenoAgentClient.register(baseURL: server.baseURL, pairingCode: "AAAA-BBBB")
        }
        let registration = try await server.pairDevice()
        #expect(registration.deviceToken.hasPrefix("stdv_"))
        #expect(registration.device.timeZone == "Europe/Berlin")
        let devices = try server.rpc().call(StenoMethods.devicesList, PageParams(limit: 10)).items
        #expect(devices.map(\.id) == [registration.device.id])
        // A token that is not this one is the same 401 as none.
        let stranger = StenoAgentClient(baseURL: server.baseURL, token: "stdv_" + String(repeating: "x", count: 43))
        do {
            _ = try await stranger.changes(since: 0)
            Issue.record("an unknown token was served")
        } catch {
            guard case .unauthorized = error else { throw error }
        }
    }

    /// The phone plays its owner's recording: whole, a range of it, and a 404 for none.
    @Test func aRecordingIsStreamedWholeAndByRanges() async throws {
        let server = try AgentTestDaemon()
        let media = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Media/recordings/design-review.wav")
        let bytes = try Data(contentsOf: media)
        let folder = server.daemon.inboxDirectory + "/alice"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try bytes.write(to: URL(fileURLWithPath: folder + "/review.wav"))
        let recording = try AgentTestDaemon.waitFor(timeout: 60) {
            try server.rpc().call(StenoMethods.recordingsList, RecordingListParams(status: .ready, limit: 10)).items.first
        }
        let id = try #require(recording?.id, "the recording was not ingested")
        let registration = try await server.pairDevice()
        let client = StenoAgentClient(baseURL: server.baseURL, token: registration.deviceToken)

        let whole = try await client.audio(recordingID: id)
        #expect(whole.data == bytes && whole.contentType == "audio/wav" && whole.totalSize == Int64(bytes.count))
        #expect(whole.etag == "\"\(recording?.contentHash ?? "")\"")
        let part = try await client.audio(recordingID: id, range: 10...19)
        #expect(part.data == bytes.subdata(in: 10..<20) && part.totalSize == Int64(bytes.count))
        #expect(try client.audioRequest(recordingID: id).value(forHTTPHeaderField: "Authorization") == "Device \(registration.deviceToken)")
        await #expect(throws: AgentClientError.server(status: 404, message: "no recording 999999")) {
            _ = try await client.audio(recordingID: 999_999)
        }
    }

    @Test func aRevokedDeviceIsToldToPairAgainAndKeepsItsCursors() async throws {
        let server = try AgentTestDaemon()
        let phone = try await TestPhone(pairedWith: server)
        await Self.add("Standup", to: phone, at: Self.at(9.5))
        #expect(try await phone.sync.run().pushed == 1)
        let saved = await phone.state.state
        _ = try server.rpc().call(StenoMethods.devicesRevoke, DeviceIDParams(id: phone.registration.device.id))
        await Self.add("Retro", to: phone, at: Self.at(15))
        do {
            try await phone.sync.run()
            Issue.record("a revoked device was served")
        } catch let error as AgentClientError {
            guard case .unauthorized = error else { throw error }
            #expect(!error.isTransient)
        }
        #expect(await phone.state.state == saved, "nothing was recorded as sent")
    }

    @Test func repeatedWrongCodesAreSlowedDownWithTheWaitToRespect() async throws {
        let server = try AgentTestDaemon()
        var answers: [AgentClientError] = []
        // The first few failures are free; the throttle then answers 429 with Retry-After.
        for attempt in 0..<12 {
            do {
                _ = try await StenoAgentClient.register(baseURL: server.baseURL, pairingCode: "WRNG-\(1000 + attempt)")
                Issue.record("a wrong code was accepted")
            } catch {
                answers.append(error)
                if case .rateLimited = error { break }
            }
        }
        let last = try #require(answers.last)
        guard case .rateLimited(let retryAfter) = last else {
            Issue.record("no 429 after \(answers.count) wrong codes: \(answers)")
            return
        }
        #expect((retryAfter ?? 0) > 0 && (retryAfter ?? 0) <= 60)
        #expect(last.isTransient)
        #expect(answers.dropLast().allSatisfy { if case .unauthorized = $0 { true } else { false } })
    }

    @Test func changesTravelBothWaysWithoutEchoes() async throws {
        let server = try AgentTestDaemon()
        let phone = try await TestPhone(pairedWith: server)
        let standup = await Self.add("Standup", to: phone, at: Self.at(9.5), hours: 0.25)
        await Self.add("Offsite Köln ☕", to: phone, at: Self.at(0, daysFromToday: 3), hours: 72, allDay: true, calendar: "CAL-HOME")
        await Self.add(
            "Call with New York", to: phone, at: Self.at(23, daysFromToday: 1), hours: 1.5, zone: Self.newYork,
            attendees: [EventAttendee(email: "bob@example.com", name: "Bob", status: "accepted", role: "required", type: "person")])

        let first = try await phone.sync.run()
        #expect(first.pushed == 3 && first.isClean, "\(first)")
        var copy = try await phone.serverCopy()
        #expect(copy.values.compactMap(\.title).sorted() == ["Call with New York", "Offsite Köln ☕", "Standup"])
        let offsite = try #require(copy.values.first { $0.title == "Offsite Köln ☕" })
        #expect(offsite.isAllDay && offsite.date != nil && offsite.endDate != nil && offsite.endDate != offsite.date)
        let call = try #require(copy.values.first { $0.title == "Call with New York" })
        #expect(call.timeZone == "America/New_York")
        #expect(call.interval()?.duration == 5400)
        #expect(try server.calendar(remoteID: "CAL-WORK") != nil && server.calendar(remoteID: "CAL-HOME") != nil)

        let quiet = try await phone.sync.run()
        #expect(quiet.pushed == 0 && quiet.updatedLocally == 0 && quiet.deletionsSent == 0 && quiet.isClean, "\(quiet)")

        // Edited on the phone: the server follows, and the echo in the next feed changes nothing.
        await phone.store.edit(standup.key) { event in
            event.title = "Daily standup"
            event.location = "Raum 4"
        }
        let edited = try await phone.sync.run()
        #expect(edited.pushed == 1 && edited.updatedLocally == 0, "\(edited)")
        copy = try await phone.serverCopy()
        #expect(copy[standup.externalId]?.title == "Daily standup" && copy[standup.externalId]?.location == "Raum 4")
        let settled = try await phone.sync.run()
        #expect(settled.pushed == 0 && settled.updatedLocally == 0, "\(settled)")
        #expect(await phone.store.event(standup.key)?.title == "Daily standup")

        // Changed elsewhere (another agent with the same token, a newer edit): the phone
        // follows Steno's copy and does not send its own write back.
        var elsewhere = try #require(await phone.store.event(standup.key))
        elsewhere.title = "Standup (moved)"
        elsewhere.setTimes(start: Self.at(10), end: Self.at(10.25), isAllDay: false, timeZone: Self.berlin)
        elsewhere.externalUpdatedAt = (elsewhere.externalUpdatedAt ?? 0) + 60_000
        let other = StenoAgentClient(baseURL: server.baseURL, token: phone.registration.deviceToken)
        #expect(try await other.upsert([elsewhere]).results.map(\.status) == [.ok])
        let followed = try await phone.sync.run()
        #expect(followed.updatedLocally == 1 && followed.pushed == 0, "\(followed)")
        let local = try #require(await phone.store.event(standup.key))
        #expect(local.title == "Standup (moved)" && local.startTime == "10:00" && local.location == "Raum 4")
        let still = try await phone.sync.run()
        #expect(still.updatedLocally == 0 && still.pushed == 0, "\(still)")
    }

    @Test func eventsOfOtherCalendarsStayOffThePhone() async throws {
        let server = try AgentTestDaemon()
        let phone = try await TestPhone(pairedWith: server)
        await Self.add("Phone's own", to: phone, at: Self.at(10))
        // Alice's office calendar, mirrored from an ICS file: in her feed, not for the phone.
        let start = ICalendarText.yesterday.addingTimeInterval(14 * 3600)
        let icsPath = server.daemon.root + "/office.ics"
        try ICalendarText.calendar(
            ICalendarText.event(uid: "office-1@example.com", title: "Office hours", start: start, end: start.addingTimeInterval(3600))
        ).write(toFile: icsPath, atomically: true, encoding: .utf8)
        _ = try server.rpc().call(StenoMethods.accountsAdd, AccountAddParams(provider: .ics, source: icsPath))
        let mirrored = try await AgentTestDaemon.waitFor(timeout: 60) {
            try await phone.client.changes(since: 0).events.first { $0.provider == "ics" }
        }
        #expect(mirrored?.title == "Office hours", "the ICS event never showed in the phone's feed:\n\(server.daemon.log)")
        let report = try await phone.sync.run()
        #expect(report.pulled >= 1 && report.created == 0 && report.pushed == 1 && report.isClean, "\(report)")
        #expect(await phone.store.allEvents.map(\.title) == ["Phone's own"])
    }

    @Test func occurrencesOfARecurringEventAreSeparateEvents() async throws {
        let server = try AgentTestDaemon()
        let phone = try await TestPhone(pairedWith: server)
        let days = [1, 8, 15]
        for day in days {
            let start = Self.at(9, daysFromToday: day)
            await phone.store.add(
                DeviceEvent(
                    externalId: "WEEKLY-1", externalCalendarId: "CAL-WORK", start: start, end: start.addingTimeInterval(1800),
                    isAllDay: false, timeZone: Self.berlin, occurrenceDate: start, title: "Weekly sync"))
        }
        #expect(try await phone.sync.run().pushed == 3)
        func occurrencesOnServer() async throws -> [Int64] {
            try await phone.client.deviceChanges(since: 0, includeDeleted: false).events
                .filter { $0.externalId == "WEEKLY-1" && !$0.isDeleted }.compactMap(\.occurrenceDate).sorted()
        }
        let expected = days.map { EpochMilliseconds.from(Self.at(9, daysFromToday: $0)) }
        #expect(try await occurrencesOnServer() == expected)
        #expect(try await phone.sync.run().pushed == 0)

        // One occurrence is cancelled on the phone; the others stay.
        #expect(await phone.store.remove(EventKey(externalId: "WEEKLY-1", occurrenceDate: expected[1])))
        let report = try await phone.sync.run()
        #expect(report.deletionsSent == 1 && report.deletedLocally == 0 && report.isClean, "\(report)")
        #expect(try await occurrencesOnServer() == [expected[0], expected[2]])
        #expect(await phone.store.allEvents.count == 2)
        let quiet = try await phone.sync.run()
        #expect(quiet.deletionsSent == 0 && quiet.pushed == 0 && quiet.deletedLocally == 0, "\(quiet)")
    }

    @Test func deletionsTravelBothWays() async throws {
        let server = try AgentTestDaemon()
        let phone = try await TestPhone(pairedWith: server)
        let dropped = await Self.add("Dropped on the phone", to: phone, at: Self.at(11, daysFromToday: 1))
        let withdrawn = await Self.add("Withdrawn elsewhere", to: phone, at: Self.at(14, daysFromToday: 1))
        let kept = await Self.add("Kept", to: phone, at: Self.at(16, daysFromToday: 1))
        #expect(try await phone.sync.run().pushed == 3)

        // Deleted on the phone: gone from the server's live events, a deletion in its feed.
        #expect(await phone.store.remove(dropped.key))
        let report = try await phone.sync.run()
        #expect(report.deletionsSent == 1 && report.pushed == 0 && report.isClean, "\(report)")
        #expect(try await phone.serverCopy().keys.sorted() == [kept.externalId, withdrawn.externalId].sorted())
        let withDeleted = try await phone.client.deviceChanges(since: 0, includeDeleted: true).events
        #expect(withDeleted.contains { $0.externalId == dropped.externalId && $0.isDeleted })

        // Deleted on the server's side: another agent holding the same token (the iPad
        // restored from the phone's backup) says the event is gone; the phone follows.
        let other = StenoAgentClient(baseURL: server.baseURL, token: phone.registration.deviceToken)
        let answer = try await other.upsert([.deletion(externalId: withdrawn.externalId)])
        #expect(answer.results.map(\.status) == [.ok])
        let followed = try await phone.sync.run()
        #expect(followed.deletedLocally == 1 && followed.deletionsSent == 0 && followed.pushed == 0, "\(followed)")
        #expect(await phone.store.allEvents.map(\.title) == ["Kept"])
        #expect(try await phone.serverCopy().keys.sorted() == [kept.externalId])
        let quiet = try await phone.sync.run()
        #expect(quiet.deletedLocally == 0 && quiet.deletionsSent == 0 && quiet.pushed == 0, "\(quiet)")
    }

    @Test func aMeetingCreatedForARecordingInTheDevicesCalendarComesBackLinked() async throws {
        let server = try AgentTestDaemon()
        let phone = try await TestPhone(pairedWith: server)
        // The device's calendar exists on the server once the phone has pushed one event of it.
        await Self.add("Lunch", to: phone, at: Self.at(12, daysFromToday: -1), calendar: "CAL-WORK")
        #expect(try await phone.sync.run().pushed == 1)
        let calendar = try #require(try server.calendar(remoteID: "CAL-WORK"))

        // A recording made yesterday at 15:05 that no meeting covers.
        let recordedAt = Self.at(15 + 5.0 / 60, daysFromToday: -1)
        let recording = try server.dropRecording("design-review.wav", as: "whiteboard", recordedAt: recordedAt, title: "Whiteboard session")
        let created = try server.rpc().call(
            StenoMethods.meetingsCreate, MeetingCreateParams(recording: recording, title: "Whiteboard session", calendar: calendar.id))
        #expect(created.calendar == calendar.name)

        let report = try await phone.sync.run()
        #expect(report.created == 1 && report.linked == 1 && report.isClean, "\(report)")
        let event = try #require(await phone.store.allEvents.first { $0.title == "Whiteboard session" })
        #expect(event.externalCalendarId == "CAL-WORK")
        let start = try #require(event.interval(defaultTimeZone: Self.berlin)?.start)
        #expect(abs(start.timeIntervalSince(recordedAt)) < 60)

        let rpc = try server.rpc()
        let link = try AgentTestDaemon.waitFor(timeout: 30) {
            let explained = try rpc.call(StenoMethods.recordingsExplain, RecordingReferenceParams(id: recording))
            return explained.stored?.state == .linked ? explained.stored : nil
        }
        let linked = try #require(link, "recording \(recording) was not linked after the agent created its event:\n\(server.daemon.log)")
        #expect(linked.meetingTitle == "Whiteboard session")
        #expect(try await phone.serverCopy()[event.externalId]?.meeting == linked.meeting)

        let again = try await phone.sync.run()
        #expect(again.created == 0 && again.linked == 0 && again.pushed == 0, "\(again)")
        #expect(await phone.store.allEvents.count == 2)
    }
}
