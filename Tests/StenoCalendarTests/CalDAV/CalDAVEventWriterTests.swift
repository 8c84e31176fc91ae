import Foundation
import Logging
import StenoCore
import StenoTesting
import Testing

@testable import StenoCalendar

/// Write-back through CalDAV: create with `If-None-Match: *`, rename with `If-Match` and a
/// strong ETag, one retry after a 412, against Radicale and a scripted server.
@Suite("CalDAV event writer", .serialized)
struct CalDAVEventWriterTests {
    func context(_ account: CalendarAccount, password: String) -> CalendarAccountContext {
        CalendarAccountContext(account: account, credentials: CalendarCredentials(password: password), logger: Logger(label: "writer-test"))
    }

    @Test("create, then rename: the next sync mirrors both; nothing else in the object changes",
          .enabled(if: TestRequirement.runs(when: RadicaleServer.isInstalled), "needs `pip install radicale`"))
    func createAndRename() async throws {
        try await CalDAVTestServer.run { server in
            try await server.writer.makeCalendar(server.calendarURL("work"), displayName: "Work")
            try await server.sync()
            let writer = CalDAVEventWriter(transport: server.transport)
            let start = server.at(days: 2)
            let created = try await writer.create(
                NewCalendarEvent(uid: "rec-1@steno", title: "Recording: Zoë's review, part 1; notes", start: start,
                                 end: start.addingTimeInterval(3600), location: "Room 4"),
                calendarRemoteID: server.remoteID("work"), context: context(server.account, password: server.password))
            #expect(created.resource == "/alice/work/rec-1@steno.ics")
            #expect(created.etag?.hasPrefix("\"") == true)
            try await server.sync()
            var live = await server.mirror.liveEvents(calendar: server.remoteID("work"))
            #expect(live.map(\.title) == ["Recording: Zoë's review, part 1; notes"])
            // The write answers with the occurrence a sync mirrors, so it can be mirrored at once.
            #expect(created.occurrence == live.first)
            #expect(live.first?.start == start && live.first?.location == "Room 4")

            // The same UID again is refused, not overwritten.
            await #expect(throws: CalendarWriteError.self) {
                _ = try await writer.create(
                    NewCalendarEvent(uid: "rec-1@steno", title: "Other", start: start, end: start),
                    calendarRemoteID: server.remoteID("work"), context: context(server.account, password: server.password))
            }

            // An object with an alarm and an X- property: a rename keeps them.
            let alarmed = TestEvents.calendar([
                "BEGIN:VEVENT", "UID:team", "DTSTAMP:20260101T000000Z", "DTSTART:\(TestEvents.utc(server.at(days: 3)))",
                "DTEND:\(TestEvents.utc(server.at(days: 3, hours: 1)))", "SUMMARY;LANGUAGE=en:Team", "X-CUSTOM:keep me",
                "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Reminder", "SUMMARY:alarm summary", "TRIGGER:-PT10M", "END:VALARM",
                "END:VEVENT",
            ])
            let etag = try await server.writer.put(server.objectURL("work", "team.ics"), ics: alarmed)
            let renamed = try await writer.rename(
                CalendarEventRef(calendarRemoteID: server.remoteID("work"), resource: "/alice/work/team.ics", uid: "team", etag: etag),
                title: "Team sync (recorded)", context: context(server.account, password: server.password))
            #expect(renamed.etag != nil && renamed.etag != etag)
            let stored = try await server.transport.send(HTTPRequestValue(
                method: "GET", url: server.objectURL("work", "team.ics"),
                headers: [("Authorization", HTTPAuthorization.basic(user: server.user, password: server.password))]))
            #expect(stored.text.contains("X-CUSTOM:keep me") && stored.text.contains("SUMMARY:alarm summary"))
            #expect(stored.text.contains("SUMMARY:Team sync (recorded)") && !stored.text.contains("SUMMARY;LANGUAGE=en:Team"))
            try await server.sync()
            live = await server.mirror.liveEvents(calendar: server.remoteID("work"))
            #expect(live.map(\.title).sorted() == ["Recording: Zoë's review, part 1; notes", "Team sync (recorded)"])

            // Gone at the source: not found, nothing created.
            try await server.writer.delete(server.objectURL("work", "team.ics"))
            do {
                _ = try await writer.rename(renamed, title: "Again", context: context(server.account, password: server.password))
                Issue.record("a rename of a deleted event succeeded")
            } catch let error as CalendarWriteError {
                guard case .notFound = error else {
                    Issue.record("expected notFound, got \(error)")
                    return
                }
            }
        }
    }

    @Test("a wrong password while writing: needs credentials", .enabled(if: TestRequirement.runs(when: RadicaleServer.isInstalled), "needs `pip install radicale`"))
    func wrongPassword() async throws {
        try await CalDAVTestServer.run { server in
            try await server.writer.makeCalendar(server.calendarURL("work"), displayName: "Work")
            let writer = CalDAVEventWriter(transport: server.transport)
            let start = server.at(days: 1)
            await #expect(throws: CalendarSyncError.self) {
                _ = try await writer.create(
                    NewCalendarEvent(title: "X", start: start, end: start), calendarRemoteID: server.remoteID("work"),
                    context: context(server.account, password: "wrong"))
            }
        }
    }

    static let object = TestEvents.single(uid: "a", summary: "Old", start: "20260105T100000Z", end: "20260105T110000Z")

    func scriptedContext(_ server: ScriptedHTTPServer) -> CalendarAccountContext {
        context(
            CalendarAccount(id: 1, provider: .caldav, ownerID: 1, displayName: "scripted", settings: ["url": server.baseURL.absoluteString, "user": "u"]),
            password: "pw")
    }

    @Test("412 on the rename: read again, retry once with the new ETag")
    func retriedOnceAfterPreconditionFailed() async throws {
        let server = try ScriptedHTTPServer(rules: [
            .init(method: "GET", path: "/cal/a.ics", times: 1, status: 200, headers: ["ETag": "\"1\""], body: Self.object),
            .init(method: "GET", path: "/cal/a.ics", times: 1, status: 200, headers: ["ETag": "\"2\""], body: Self.object),
            .init(method: "PUT", path: "/cal/a.ics", times: 1, status: 412),
            .init(method: "PUT", path: "/cal/a.ics", times: 1, status: 204, headers: ["ETag": "\"3\""]),
        ])
        defer { server.shutdown() }
        let transport = HTTPTransport()
        let renamed = try await CalDAVEventWriter(transport: transport).rename(
            CalendarEventRef(calendarRemoteID: "/cal/", resource: "/cal/a.ics", etag: "\"1\""), title: "New", context: scriptedContext(server))
        #expect(renamed.etag == "\"3\"")
        let requests = server.requests
        #expect(requests.map(\.method) == ["GET", "PUT", "GET", "PUT"])
        #expect(requests.filter { $0.method == "PUT" }.map(\.ifMatch) == ["\"1\"", "\"2\""])
        #expect(requests.last?.body.contains("SUMMARY:New") == true)
        try await transport.shutdown()
    }

    @Test("412 twice: a conflict, and no third attempt")
    func conflictAfterOneRetry() async throws {
        let server = try ScriptedHTTPServer(rules: [
            .init(method: "GET", path: "/cal/a.ics", status: 200, headers: ["ETag": "\"1\""], body: Self.object),
            .init(method: "PUT", path: "/cal/a.ics", status: 412),
        ])
        defer { server.shutdown() }
        let transport = HTTPTransport()
        await #expect(throws: CalendarWriteError.self) {
            _ = try await CalDAVEventWriter(transport: transport).rename(
                CalendarEventRef(calendarRemoteID: "/cal/", resource: "/cal/a.ics"), title: "New", context: scriptedContext(server))
        }
        #expect(server.requests.map(\.method) == ["GET", "PUT", "GET", "PUT"])
        try await transport.shutdown()
    }

    @Test("a weak ETag is never sent in If-Match: the rename is refused before any PUT")
    func weakETagIsNotAPrecondition() async throws {
        let server = try ScriptedHTTPServer(rules: [
            .init(method: "GET", path: "/cal/a.ics", status: 200, headers: ["ETag": "W/\"1\""], body: Self.object),
            .init(method: "PUT", path: "/cal/a.ics", status: 204),
        ])
        defer { server.shutdown() }
        let transport = HTTPTransport()
        await #expect(throws: CalendarWriteError.self) {
            _ = try await CalDAVEventWriter(transport: transport).rename(
                CalendarEventRef(calendarRemoteID: "/cal/", resource: "/cal/a.ics"), title: "New", context: scriptedContext(server))
        }
        #expect(server.requests.map(\.method) == ["GET"])
        try await transport.shutdown()
    }

    @Test("create sends If-None-Match: * and text/calendar")
    func createPrecondition() async throws {
        let server = try ScriptedHTTPServer(rules: [
            .init(method: "PUT", path: "/cal/plain-uid.ics", status: 201, headers: ["ETag": "\"n\""]),
        ])
        defer { server.shutdown() }
        let transport = HTTPTransport()
        let created = try await CalDAVEventWriter(transport: transport).create(
            NewCalendarEvent(uid: "plain-uid", title: "T", start: Date(timeIntervalSince1970: 0), end: Date(timeIntervalSince1970: 60)),
            calendarRemoteID: "/cal/", context: scriptedContext(server))
        #expect(created.resource == "/cal/plain-uid.ics" && created.etag == "\"n\"")
        let put = try #require(server.requests.first)
        #expect(put.ifNoneMatch == "*" && put.ifMatch == nil)
        #expect(put.body.contains("UID:plain-uid\r\n") && put.body.contains("DTSTART:19700101T000000Z\r\n"))
        try await transport.shutdown()
    }
}

@Suite("CalDAV event documents")
struct CalDAVEventDocumentTests {
    @Test("text is escaped and long lines folded on character boundaries")
    func escapingAndFolding() throws {
        let title = "Ünïcødé, semi; back\\slash\nnew line " + String(repeating: "東京", count: 40)
        let text = CalDAVEventDocument.new(
            NewCalendarEvent(title: title, start: Date(timeIntervalSince1970: 1_790_000_000), end: Date(timeIntervalSince1970: 1_790_003_600)),
            uid: "u", now: Date(timeIntervalSince1970: 0))
        for line in text.components(separatedBy: "\r\n") { #expect(line.utf8.count <= 75) }
        let parsed = try ICalendar.parse(text)
        #expect(parsed.events.first?.summary == title)
    }

    @Test("renaming every truncation of an object never crashes, and a result without VEVENT is refused")
    func renameFuzz() throws {
        let object = CalDAVEventWriterTests.object
        var renamed = 0
        for length in 0...object.count {
            let prefix = String(object.prefix(length))
            if let text = try? CalDAVEventDocument.renamed(prefix, title: "R", now: Date()) {
                #expect(text.contains("SUMMARY:R"))
                renamed += 1
            }
        }
        #expect(renamed > 0)
        #expect(throws: CalendarWriteError.self) { _ = try CalDAVEventDocument.renamed("BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n", title: "R", now: Date()) }
    }
}
