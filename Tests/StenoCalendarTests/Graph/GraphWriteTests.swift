import Foundation
import StenoCore
import StenoTesting
import Testing

@testable import StenoCalendar

/// Write-back to Microsoft Graph against the double: create with a transactionId, rename with
/// If-Match and one retry after 412, series renamed through their master, and the errors a
/// person can act on (read-only sign-in, gone event).
@Suite("Graph write-back against the double", .serialized)
struct GraphWriteTests {
    /// Credentials whose refresh token carries write access (or only read access).
    func credentials(_ bed: GraphTestBed, write: Bool = true) -> CalendarCredentials {
        let scope = write ? "offline_access Calendars.ReadWrite" : "offline_access Calendars.Read"
        return CalendarCredentials(refreshToken: bed.double.issueRefreshToken(for: GraphTestBed.user, scope: scope))
    }

    @Test("create POSTs the event in UTC with a transactionId, and answers with the event to mirror; a retry creates nothing new")
    func create() async throws {
        let bed = try GraphTestBed()
        defer { Task { await bed.shutdown() } }
        let context = bed.accountContext(credentials: credentials(bed))
        let start = GraphTestBed.start(hours: -3)
        let event = NewCalendarEvent(
            uid: "steno-abc@steno", title: "Acme renewal", start: start, end: start.addingTimeInterval(1800), description: "Recorded by Steno")
        let provider = GraphProvider(transport: bed.transport)
        let ref = try await provider.create(event, calendarRemoteID: "me", context: context)
        let post = try #require(bed.double.writes.first)
        #expect(post.method == "POST" && post.uri == "/v1.0/me/events")
        let body = try #require(try JSONSerialization.jsonObject(with: Data(post.body.utf8)) as? [String: Any])
        #expect(body["transactionId"] as? String == "steno-abc@steno" && body["isReminderOn"] as? Bool == false)
        #expect((body["start"] as? [String: Any])?["timeZone"] as? String == "UTC")
        #expect(post.header("prefer")?.contains("outlook.timezone=\"UTC\"") == true)
        let occurrence = try #require(ref.occurrence)
        #expect(occurrence.title == "Acme renewal" && occurrence.start == start && occurrence.end == start.addingTimeInterval(1800))
        #expect(ref.calendarRemoteID == "me" && ref.resource == occurrence.remoteID && ref.etag == "ck-0")
        #expect(bed.double.events().map(\.subject) == ["Acme renewal"])

        // The answer was lost and the create is sent again: the same event comes back.
        let again = try await provider.create(event, calendarRemoteID: "me", context: context)
        #expect(again.resource == ref.resource && bed.double.events().count == 1)
    }

    @Test("a sign-in without write access is refused with the command that grants it")
    func readOnly() async throws {
        let bed = try GraphTestBed()
        defer { Task { await bed.shutdown() } }
        bed.seed(1)
        let context = bed.accountContext(credentials: credentials(bed, write: false))
        let provider = GraphProvider(transport: bed.transport)
        do {
            _ = try await provider.rename(CalendarEventRef(calendarRemoteID: "me", resource: "ev0000"), title: "X", context: context)
            Issue.record("the rename should be refused")
        } catch let CalendarWriteError.notPermitted(message) {
            #expect(message.contains("ErrorAccessDenied") && message.contains("steno accounts signin 1 --write"), "\(message)")
        }
        #expect(bed.double.events().first?.subject == "Meeting 0")
    }

    @Test("rename PATCHes the subject with If-Match of the change key it read")
    func rename() async throws {
        let bed = try GraphTestBed()
        defer { Task { await bed.shutdown() } }
        bed.seed(2)
        let provider = GraphProvider(transport: bed.transport)
        let ref = try await provider.rename(
            CalendarEventRef(calendarRemoteID: "me", resource: "ev0001"), title: "Renamed", context: bed.accountContext(credentials: credentials(bed)))
        let patch = try #require(bed.double.writes.first)
        #expect(patch.method == "PATCH" && patch.uri == "/v1.0/me/events/ev0001" && patch.header("if-match") == "W/\"ck-0\"")
        #expect(patch.body == "{\"subject\":\"Renamed\"}")
        #expect(ref.occurrence?.title == "Renamed" && ref.etag == "ck-1")
        #expect(bed.double.events().map(\.subject) == ["Meeting 0", "Renamed"])
    }

    @Test("a change between the read and the PATCH (412) is read again and retried once; twice is a conflict")
    func conflict() async throws {
        let bed = try GraphTestBed()
        defer { Task { await bed.shutdown() } }
        bed.seed(1)
        let provider = GraphProvider(transport: bed.transport)
        let context = bed.accountContext(credentials: credentials(bed))
        bed.double.changeBeforeNextWrite("ev0000")
        let ref = try await provider.rename(CalendarEventRef(calendarRemoteID: "me", resource: "ev0000"), title: "After a retry", context: context)
        #expect(ref.occurrence?.title == "After a retry")
        #expect(bed.double.writes.map { $0.header("if-match") ?? "" } == ["W/\"ck-0\"", "W/\"ck-1\""])

        bed.double.changeBeforeNextWrite("ev0000", times: 2)
        await #expect(throws: CalendarWriteError.self) {
            _ = try await provider.rename(CalendarEventRef(calendarRemoteID: "me", resource: "ev0000"), title: "Lost", context: context)
        }
        #expect(bed.double.events().first?.subject == "After a retry")
    }

    @Test("an occurrence renames its series through the master; an exception is renamed itself too")
    func series() async throws {
        let bed = try GraphTestBed()
        defer { Task { await bed.shutdown() } }
        let occurrences = bed.double.addSeries(id: "standup", subject: "Standup", firstStart: GraphTestBed.start(hours: 2), duration: 900, count: 3)
        let provider = GraphProvider(transport: bed.transport)
        let context = bed.accountContext(credentials: credentials(bed))
        let ref = try await provider.rename(CalendarEventRef(calendarRemoteID: "me", resource: occurrences[1].id), title: "Daily sync", context: context)
        #expect(ref.occurrence == nil, "the occurrences follow with the next sync")
        #expect(bed.double.writes.map(\.uri) == ["/v1.0/me/events/standup"])
        #expect(bed.double.events().map(\.subject) == ["Daily sync", "Daily sync", "Daily sync"])

        // An occurrence edited on its own (an exception) keeps its subject unless renamed itself.
        bed.double.update(occurrences[2].id) { $0.type = "exception"; $0.subject = "Standup (moved)" }
        let exception = try await provider.rename(
            CalendarEventRef(calendarRemoteID: "me", resource: occurrences[2].id), title: "Weekly sync", context: context)
        #expect(exception.occurrence?.title == "Weekly sync")
        #expect(bed.double.events().map(\.subject) == ["Weekly sync", "Weekly sync", "Weekly sync"])
    }

    @Test("renaming an event that is gone says so")
    func gone() async throws {
        let bed = try GraphTestBed()
        defer { Task { await bed.shutdown() } }
        let provider = GraphProvider(transport: bed.transport)
        await #expect(throws: CalendarWriteError.notFound("event nope is gone from me at Microsoft Graph (HTTP 404); sync the account")) {
            _ = try await provider.rename(
                CalendarEventRef(calendarRemoteID: "me", resource: "nope"), title: "X", context: bed.accountContext(credentials: credentials(bed)))
        }
    }
}
