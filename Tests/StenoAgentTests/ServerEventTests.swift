import Foundation
import StenoAgent
import Testing

/// Feed rows and upsert answers as the protocol shows them, and how the loop compares a row
/// with the device's copy.
@Suite("Feed rows and upsert answers")
struct ServerEventTests {
    static let row = #"""
        { "id": "e:4711", "provider": "apple", "device": 3, "externalId": "A1", "externalCalendarId": "CAL-1",
          "calendarTitle": "Work", "title": "Standup", "allDay": false,
          "date": "2026-11-25", "startTime": "09:30", "endTime": "09:45", "timeZone": "Europe/Berlin",
          "start": "2026-11-25T08:30:00Z", "end": "2026-11-25T08:45:00Z",
          "iCalUID": "uid-1", "meeting": 812, "location": "Room 1", "url": "https://meet.example.com/x",
          "organizer": { "email": "a@example.com", "name": "Ann" }, "attendees": [ { "email": "b@example.com", "status": "accepted" } ],
          "externalUpdatedAt": 1795500000000, "updatedAt": 1795600000000, "deletedAt": 0, "somethingNew": [1, 2] }
        """#

    func decodeRow(_ text: String = Self.row) throws -> ServerEvent {
        try JSONDecoder().decode(ServerEvent.self, from: Data(text.utf8))
    }

    @Test func aFeedRowDecodesWithUnknownFieldsIgnored() throws {
        let row = try decodeRow()
        #expect(row.id == "e:4711")
        #expect(row.isEvent(ofDevice: 3))
        #expect(!row.isEvent(ofDevice: 4))
        #expect(!row.isCreationRequest && !row.isDeleted && !row.isAllDay)
        #expect(row.key == EventKey(externalId: "A1"))
        #expect(row.meeting == 812 && row.attendees?.first?.status == "accepted")
        let interval = try #require(row.interval())
        #expect(interval.start == (try Date("2026-11-25T08:30:00Z", strategy: .iso8601)))
        #expect(interval.duration == 900)
    }

    @Test func aRowWithoutProviderIsARequestToCreateAndItsLocalFieldsServeWithoutInstants() throws {
        let row = try decodeRow(
            #"{"id": "r:9", "externalCalendarId": "CAL-1", "title": "Recording 9", "date": "2026-11-25", "startTime": "23:30", "endTime": "00:15", "endDate": "2026-11-26", "timeZone": "America/New_York", "deletedAt": 0}"#
        )
        #expect(row.isCreationRequest && !row.isEvent(ofDevice: 3))
        let interval = try #require(row.interval())
        #expect(interval.start == (try Date("2026-11-26T04:30:00Z", strategy: .iso8601)))
        #expect(interval.duration == 45 * 60)
        let created = try #require(DeviceEvent(creating: row, externalId: "N1", calendarId: "CAL-1", calendarTitle: "Work"))
        #expect([created.date, created.startTime, created.endTime, created.endDate] == ["2026-11-25", "23:30", "00:15", "2026-11-26"])
        #expect(created.timeZone == "America/New_York" && created.title == "Recording 9" && created.serverId == nil)
        let fractional = try decodeRow(#"{"id": "x", "start": "2026-11-25T08:30:00.250Z", "end": "2026-11-25T09:00:00.000Z"}"#)
        #expect(fractional.interval()?.start == (try Date("2026-11-25T08:30:00Z", strategy: .iso8601)).addingTimeInterval(0.25))
        #expect(try decodeRow(#"{"id": "x", "deletedAt": 1795600000000}"#).isDeleted)
    }

    @Test func theSameTimesInAnotherZoneAreNotAChangeButATitleOrAMoveIs() throws {
        let row = try decodeRow()
        let start = try Date("2026-11-25T08:30:00Z", strategy: .iso8601)
        let device = DeviceEvent(
            externalId: "A1", externalCalendarId: "CAL-1", start: start.addingTimeInterval(20), end: start.addingTimeInterval(900),
            isAllDay: false, timeZone: TimeZone(identifier: "Asia/Tokyo") ?? .current, title: "Standup", location: "Room 1",
            url: "https://meet.example.com/x")
        #expect(!device.differs(from: row))
        var renamed = device
        renamed.title = "Stand-up"
        #expect(renamed.differs(from: row))
        var moved = device
        moved.setTimes(start: start.addingTimeInterval(3600), end: start.addingTimeInterval(4500), isAllDay: false, timeZone: .current)
        #expect(moved.differs(from: row))
        let updated = try #require(moved.updated(from: row))
        #expect(!updated.differs(from: row))
        #expect(updated.timeZone == "Europe/Berlin" && updated.startTime == "09:30" && updated.externalId == "A1")
    }

    @Test func anUpsertAnswerDecodesWithItsCounts() throws {
        let text = #"""
            { "results": [ { "externalId": "A1", "status": "ok" },
                           { "externalId": "A2", "status": "unchanged" },
                           { "externalId": "A3", "status": "stale" },
                           { "externalId": "A4", "status": "error", "field": "startTime", "error": "\"25:00\" is not a time HH:mm" } ],
              "counts": { "ok": 1, "unchanged": 1, "stale": 1, "error": 1 },
              "serverTime": 1795600000000 }
            """#
        let answer = try JSONDecoder().decode(UpsertResponse.self, from: Data(text.utf8))
        #expect(answer.serverTime == 1_795_600_000_000)
        #expect(answer.results.map(\.status) == [.ok, .unchanged, .stale, .error])
        #expect(answer.counts == [.ok: 1, .unchanged: 1, .stale: 1, .error: 1])
        #expect(answer.results.map(\.isAccepted) == [true, true, false, false])
        #expect(answer.errors.first?.errorDescription == #"A4: startTime: "25:00" is not a time HH:mm"#)
    }

    @Test func theSyncStateSurvivesJSON() throws {
        var state = AgentSyncState(lastServerSyncAt: 12, lastAppleSyncAt: 34)
        state.pendingLinks["r:9"] = EventKey(externalId: "N1", occurrenceDate: 5)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("steno-agent-state-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = FileAgentStateStore(url: folder.appendingPathComponent("state.json"))
        #expect(try store.load() == AgentSyncState())
        try store.save(state)
        #expect(try store.load() == state)
    }
}
