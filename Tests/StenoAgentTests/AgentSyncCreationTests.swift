import Foundation
import StenoAgent
import Testing

/// Events Steno asks the device to create (rows without `provider`): created once in the
/// right calendar, confirmed with `serverId`, never duplicated when the confirmation fails.
@Suite("AgentSync: events Steno asks for")
struct AgentSyncCreationTests {
    static let berlin = TimeZone(identifier: "Europe/Berlin") ?? .current
    let server = FakeDeviceServer()
    let phone = InMemoryCalendarStore(calendars: ["CAL-1": "Work", "CAL-2": "Home"], defaultTimeZone: Self.berlin)
    let state = InMemoryAgentStateStore()

    func agent(fallback: String? = nil) -> AgentSync {
        AgentSync(
            client: server.client(), store: phone, stateStore: state,
            configuration: AgentSyncConfiguration(deviceId: FakeDeviceServer.deviceID, fallbackCalendarId: fallback, defaultTimeZone: Self.berlin))
    }

    func request(_ id: String, calendar: String?, title: String = "Recording: design review") -> ServerEvent {
        ServerEvent(
            id: id, externalCalendarId: calendar, title: title, allDay: false, date: "2026-11-24", startTime: "10:00", endTime: "10:45",
            timeZone: "Europe/Berlin", start: "2026-11-24T09:00:00Z", end: "2026-11-24T09:45:00Z", deletedAt: 0)
    }

    @Test func aRequestedEventIsCreatedInItsCalendarAndConfirmedOnce() async throws {
        server.put(request("r:1", calendar: "CAL-2"))
        let sync = agent()
        let report = try await sync.run(now: Date())
        #expect(report.created == 1 && report.linked == 1 && report.pushed == 0 && report.isClean, "\(report)")
        let created = try #require(await phone.allEvents.first)
        #expect(created.externalCalendarId == "CAL-2" && created.calendarTitle == "Home")
        #expect([created.date, created.startTime, created.endTime] == ["2026-11-24", "10:00", "10:45"])
        #expect(server.allRows["r:1"] == nil, "the request row is fulfilled")
        #expect(server.deviceEvents[created.key.description]?.title == "Recording: design review")
        let again = try await sync.run(now: Date())
        #expect(again.created == 0 && again.linked == 0 && again.pushed == 0, "\(again)")
        #expect(await phone.allEvents.count == 1)
    }

    @Test func aFailedConfirmationIsRetriedWithoutCreatingTheEventTwice() async throws {
        server.put(request("r:2", calendar: "CAL-1"))
        server.failNext("/sync/apple/events/upsert", status: 503)
        let sync = agent()
        await #expect(throws: AgentClientError.server(status: 503, message: "scripted failure")) { try await sync.run(now: Date()) }
        #expect(await phone.allEvents.count == 1)
        #expect(await state.state.pendingLinks.keys.sorted() == ["r:2"])
        #expect(await state.state.lastServerSyncAt == nil, "the cursor stays until the request is confirmed")

        let retry = try await sync.run(now: Date())
        #expect(retry.created == 0 && retry.linked == 1, "\(retry)")
        #expect(await phone.allEvents.count == 1)
        #expect(await state.state.pendingLinks.isEmpty)
        #expect(server.allRows["r:2"] == nil)
    }

    @Test func aRequestWithoutAUsableCalendarGoesToTheFallbackOrWaits() async throws {
        server.put(request("r:3", calendar: "CAL-GONE", title: "Into the fallback"))
        let withFallback = try await agent(fallback: "CAL-1").run(now: Date())
        #expect(withFallback.created == 1 && withFallback.linked == 1, "\(withFallback)")
        #expect(await phone.allEvents.first?.externalCalendarId == "CAL-1")

        let other = FakeDeviceServer()
        other.put(request("r:4", calendar: nil))
        let stranded = AgentSync(
            client: other.client(), store: InMemoryCalendarStore(), stateStore: InMemoryAgentStateStore(),
            configuration: AgentSyncConfiguration(deviceId: FakeDeviceServer.deviceID))
        let report = try await stranded.run(now: Date())
        #expect(report.created == 0 && report.serverTime == nil, "\(report)")
        #expect(report.issues.map(\.stage) == [.apply] && report.issues.first?.subject == "r:4")
    }

    @Test func aWithdrawnRequestRemovesTheEventCreatedForIt() async throws {
        server.put(request("r:5", calendar: "CAL-1"))
        server.failNext("/sync/apple/events/upsert", status: 503)
        let sync = agent()
        _ = try? await sync.run(now: Date())
        #expect(await phone.allEvents.count == 1)
        server.delete(id: "r:5")
        let report = try await sync.run(now: Date())
        #expect(report.deletedLocally == 1 && report.linked == 0, "\(report)")
        #expect(await phone.allEvents.isEmpty)
    }
}
