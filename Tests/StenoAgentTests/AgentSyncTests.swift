import Foundation
import StenoAgent
import Testing

/// The sync loop against the protocol served in memory: two-way changes without echoes,
/// deletions both ways, events Steno asks for created once and confirmed, the window's edges.
@Suite("AgentSync against an in-memory server")
struct AgentSyncTests {
    static let berlin = TimeZone(identifier: "Europe/Berlin") ?? .current
    let server = FakeDeviceServer()
    let phone = InMemoryCalendarStore(calendars: ["CAL-1": "Work", "CAL-2": "Home"], defaultTimeZone: Self.berlin)
    let state = InMemoryAgentStateStore()
    let now = Date()

    func agent(fallback: String? = nil) -> AgentSync {
        AgentSync(
            client: server.client(), store: phone, stateStore: state,
            configuration: AgentSyncConfiguration(deviceId: FakeDeviceServer.deviceID, fallbackCalendarId: fallback, defaultTimeZone: Self.berlin))
    }

    /// An event on the phone `hours` from now, lasting one hour.
    @discardableResult
    func add(_ title: String, hours: Double, calendar: String = "CAL-1", occurrence: Date? = nil, id: String = "") async -> DeviceEvent {
        let start = now.addingTimeInterval(hours * 3600)
        let event = DeviceEvent(
            externalId: id, externalCalendarId: calendar, start: start, end: start.addingTimeInterval(3600), isAllDay: false,
            timeZone: Self.berlin, occurrenceDate: occurrence, title: title)
        return await phone.add(event)
    }

    func titlesOnServer() -> [String] {
        server.deviceEvents.values.compactMap(\.title).sorted()
    }

    @Test func eventsGoUpOnceAndTheServersChangesComeDownWithoutEchoes() async throws {
        let standup = await add("Standup", hours: 2)
        await add("Retro", hours: 26)
        await add("Old", hours: -24 * 10)
        let sync = agent()
        let first = try await sync.run(now: now)
        #expect(first.pushed == 3 && first.deletionsSent == 0 && first.isClean, "\(first)")
        #expect(titlesOnServer() == ["Old", "Retro", "Standup"])

        let quiet = try await sync.run(now: now)
        #expect(quiet.pushed == 0 && quiet.updatedLocally == 0 && quiet.pulled == 3, "\(quiet)")

        // Steno renames the standup (a rename through `steno meetings rename`).
        var renamed = try #require(server.deviceEvents[standup.key.description])
        renamed.title = "Daily standup"
        server.put(renamed)
        let down = try await sync.run(now: now)
        #expect(down.updatedLocally == 1 && down.pushed == 0, "\(down)")
        #expect(await phone.event(standup.key)?.title == "Daily standup")
        let settled = try await sync.run(now: now)
        #expect(settled.updatedLocally == 0 && settled.pushed == 0, "\(settled)")

        // The user moves the retro on the phone: it goes up, and the server's echo of it changes nothing.
        let retro = try #require(await phone.allEvents.first { $0.title == "Retro" })
        await phone.edit(retro.key) { event in
            event.setTimes(start: now.addingTimeInterval(30 * 3600), end: now.addingTimeInterval(31 * 3600), isAllDay: false, timeZone: Self.berlin)
        }
        let up = try await sync.run(now: now)
        #expect(up.pushed == 1 && up.updatedLocally == 0, "\(up)")
        let movedRow = try #require(server.deviceEvents[retro.key.description])
        #expect(movedRow.interval()?.start.timeIntervalSince(now.addingTimeInterval(30 * 3600)) ?? 99 < 60)
        let after = try await sync.run(now: now)
        #expect(after.pushed == 0 && after.updatedLocally == 0, "\(after)")
    }

    @Test func aDeviceChangeNewerThanTheServersCopyWins() async throws {
        let event = await add("Planning", hours: 3)
        let sync = agent()
        try await sync.run(now: now)
        // Steno's copy changes, but the user edits the phone's before the next run.
        var row = try #require(server.deviceEvents[event.key.description])
        row.title = "Planning (server)"
        server.put(row)
        await phone.edit(event.key) { $0.title = "Planning (phone)" }
        let report = try await sync.run(now: now)
        #expect(report.updatedLocally == 0 && report.pushed == 1, "\(report)")
        #expect(await phone.event(event.key)?.title == "Planning (phone)")
        #expect(server.deviceEvents[event.key.description]?.title == "Planning (phone)")
    }

    @Test func deletionsTravelBothWaysOnce() async throws {
        let gone = await add("Cancelled on the phone", hours: 5)
        let dropped = await add("Deleted at the server", hours: 6)
        let series = "SERIES-1"
        let first = now.addingTimeInterval(24 * 3600), second = now.addingTimeInterval(48 * 3600)
        await add("Weekly", hours: 24, occurrence: first, id: series)
        await add("Weekly", hours: 48, occurrence: second, id: series)
        let sync = agent()
        #expect(try await sync.run(now: now).pushed == 4)

        #expect(await phone.remove(gone.key))
        #expect(await phone.remove(EventKey(externalId: series, occurrenceDate: EpochMilliseconds.from(second))))
        let deleted = try await sync.run(now: now)
        #expect(deleted.deletionsSent == 2 && deleted.pushed == 0, "\(deleted)")
        #expect(titlesOnServer() == ["Deleted at the server", "Weekly"])
        #expect(server.deviceEvents.keys.contains("\(series)@\(EpochMilliseconds.from(first))"))
        #expect(try await sync.run(now: now).deletionsSent == 0)

        // The server's copy goes (another agent with the same token, an admin's clean-up).
        server.delete(id: "e:\(dropped.key.description)")
        let fromServer = try await sync.run(now: now)
        #expect(fromServer.deletedLocally == 1 && fromServer.deletionsSent == 0, "\(fromServer)")
        #expect(await phone.event(dropped.key) == nil)
        #expect(await phone.allEvents.map(\.title) == ["Weekly"])
    }

    @Test func anEventLeavingTheWindowIsNotADeletionAndOneEnteringItIsSent() async throws {
        await add("Soon", hours: 1)
        await add("Far away", hours: 24 * 400)
        let sync = agent()
        #expect(try await sync.run(now: now).pushed == 1)
        // Forty days later "Soon" is out of the window and "Far away" has come into it.
        let later = try await sync.run(now: now.addingTimeInterval(40 * 86_400))
        #expect(later.deletionsSent == 0 && later.pushed == 1, "\(later)")
        #expect(titlesOnServer() == ["Far away", "Soon"])
    }

    @Test func aFirstPushCutShortResumesWhereItStopped() async throws {
        for index in 0..<600 { await add("Event \(index)", hours: Double(index % 200)) }
        server.failNext("/sync/apple/events/upsert", status: 503, after: 1)
        let sync = agent()
        await #expect(throws: AgentClientError.self) { try await sync.run(now: now) }
        #expect(server.deviceEvents.count == 500)
        #expect(await state.state.known.count == 500, "the batch that went through is remembered")
        let resumed = try await sync.run(now: now)
        #expect(resumed.pushed == 100 && resumed.isClean, "\(resumed)")
        #expect(server.deviceEvents.count == 600)
    }

    @Test func aBatchOverTheBodyLimitIsSplitAndAnEventTooLargeAloneIsReported() async throws {
        let crowd = (0..<40).map { EventAttendee(email: "person\($0)@example.com", name: "Person \($0)", status: "accepted") }
        for index in 0..<12 {
            let start = now.addingTimeInterval(Double(index) * 3600)
            await phone.add(
                DeviceEvent(
                    externalId: "", externalCalendarId: "CAL-1", start: start, end: start.addingTimeInterval(1800), isAllDay: false,
                    timeZone: Self.berlin, title: "All hands \(index)", attendees: crowd))
        }
        let everyone = (0..<400).map { EventAttendee(email: "employee\($0)@example.com", name: "Employee \($0)") }
        let huge = await add("Company meeting", hours: 50)
        await phone.edit(huge.key) { $0.attendees = everyone }
        server.maxBodyBytes = 12_000
        let report = try await agent().run(now: now)
        #expect(report.pushed == 13, "\(report)")
        #expect(server.deviceEvents.count == 12)
        #expect(report.issues.map(\.subject) == [huge.key.description], "\(report)")
        #expect(report.issues.first?.message.contains("larger than the server takes") == true)
        #expect(server.upsertRequests > 1)
    }

    @Test func theTokenStaysOutOfDescriptions() async throws {
        let client = server.client()
        let registration = try await StenoAgentClient.register(baseURL: server.baseURL, pairingCode: "k7qf 2mxd", session: server.session())
        #expect(registration.deviceToken == FakeDeviceServer.token)
        for text in [String(describing: client), String(reflecting: client), "\(registration)", String(reflecting: registration)] {
            #expect(!text.contains(FakeDeviceServer.token), "\(text)")
        }
        var dumped = ""
        dump(client, to: &dumped)
        dump(registration, to: &dumped)
        #expect(!dumped.contains(FakeDeviceServer.token))
    }

    @Test func anEventMovedOutOfTheWindowIsSentMovedNotDeleted() async throws {
        let offsite = await add("Offsite", hours: 48)
        let sync = agent()
        #expect(try await sync.run(now: now).pushed == 1)
        let nextYear = now.addingTimeInterval(400 * 86_400)
        await phone.edit(offsite.key) { event in
            event.setTimes(start: nextYear, end: nextYear.addingTimeInterval(3600), isAllDay: false, timeZone: Self.berlin)
        }
        let moved = try await sync.run(now: now)
        #expect(moved.deletionsSent == 0 && moved.pushed == 1, "\(moved)")
        let row = try #require(server.deviceEvents[offsite.key.description])
        #expect(abs((row.interval()?.start ?? now).timeIntervalSince(nextYear)) < 60)
        let quiet = try await sync.run(now: now)
        #expect(quiet.deletionsSent == 0 && quiet.pushed == 0, "\(quiet)")
        #expect(await state.state.known.isEmpty)
    }

    @Test func eventsOfOtherProvidersAndDevicesStayOffThePhone() async throws {
        server.put(ServerEvent(id: "g:1", provider: "graph", externalId: "AAMk", title: "Outlook meeting", date: "2026-11-25", startTime: "10:00", endTime: "11:00"))
        server.put(ServerEvent(id: "e:9", provider: "apple", device: 99, externalId: "X", externalCalendarId: "CAL-1", title: "Other phone", date: "2026-11-25", startTime: "10:00", endTime: "11:00"))
        let report = try await agent().run(now: now)
        #expect(report.pulled == 2 && report.created == 0 && report.pushed == 0, "\(report)")
        #expect(await phone.allEvents.isEmpty)
    }
}
