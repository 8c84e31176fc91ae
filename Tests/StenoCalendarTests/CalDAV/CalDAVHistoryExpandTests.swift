import Foundation
import Logging
import StenoCore
import StenoTesting
import Testing

@testable import StenoCalendar

/// History fetches against a scripted server that refuses `expand`: probed once, stored with
/// the account's capabilities, and recurring objects expanded here for the span only, still in
/// one request per calendar and span.
@Suite("CalDAV history without server-side expand", .serialized)
struct CalDAVHistoryExpandTests {
    @Test("expand refused: probed once, stored, series expanded locally within each span, one calendar-query per span")
    func expandRefused() async throws {
        let seriesStart = Date(timeIntervalSince1970: 1_600_000_000 - 1_600_000_000.truncatingRemainder(dividingBy: 86_400) + 9 * 3600)
        let series = TestEvents.calendar([
            "BEGIN:VEVENT", "UID:weekly", "DTSTAMP:20200101T000000Z", "DTSTART:\(TestEvents.utc(seriesStart))",
            "DTEND:\(TestEvents.utc(seriesStart.addingTimeInterval(1800)))", "RRULE:FREQ=WEEKLY;COUNT=100", "SUMMARY:Weekly", "END:VEVENT",
        ])
        let server = try ScriptedHTTPServer(rules: [
            .init(method: "REPORT", path: "/cal/home/c1/", bodyContains: "C:expand", status: 403, body: "<error xmlns=\"DAV:\"/>"),
            .init(method: "REPORT", path: "/cal/home/c1/", bodyContains: "<C:calendar-data/>", status: 207,
                  body: ScriptedDAV.multistatus([ScriptedDAV.object("/cal/home/c1/weekly.ics", etag: "\"w1\"", ics: series)])),
        ])
        defer { server.shutdown() }
        let mirror = InMemoryCalendarMirror()
        _ = try await mirror.apply(CalendarChangeSet(calendar: CalendarDescriptor(remoteID: "/cal/home/c1/", name: "C1"), scope: .incremental))
        var account = CalendarAccount(
            id: 1, provider: .caldav, ownerID: 1, displayName: "scripted", settings: ["url": server.baseURL.absoluteString, "user": "u"])
        account.syncState = CalDAVStateCoding.encode(CalDAVAccountState(principalURL: nil, homeURL: server.baseURL.absoluteString + "cal/home/"))
        account.capabilities = CalDAVStateCoding.encode(
            CalDAVCapabilities(syncCollection: true, calendarMultiget: true, calendarQuery: true, scheduling: false, davClasses: ["1"]))
        let transport = HTTPTransport()
        defer { Task { try? await transport.shutdown() } }
        func fetch(_ span: DateInterval) async throws -> CalendarSyncReport {
            let context = CalendarSyncContext(
                account: await mirror.account(account), credentials: CalendarCredentials(password: "pw"),
                window: ICalendar.mirroredWindow(around: Date()), mirror: mirror, logger: Logger(label: "scripted"))
            return try await CalDAVProvider(transport: transport).fetchHistory([span], context: context)
        }
        // Three weeks of the series, then another three weeks later on.
        let first = DateInterval(start: seriesStart.addingTimeInterval(10 * 7 * 86_400 - 3600), duration: 21 * 86_400)
        let second = DateInterval(start: seriesStart.addingTimeInterval(40 * 7 * 86_400 - 3600), duration: 21 * 86_400)
        let probed = try await fetch(first)
        #expect(probed.requests == 2)  // the probe with expand, refused; the query without
        let capabilities = CalDAVStateCoding.decode(CalDAVCapabilities.self, from: await mirror.account(account).capabilities)
        #expect(capabilities?.expand == false)
        #expect(try await fetch(second).requests == 1)
        #expect(server.requests.filter { $0.body.contains("C:expand") }.count == 1)
        let weekly = await mirror.liveEvents(calendar: "/cal/home/c1/").filter { $0.seriesUID == "weekly" }
        // Expanded within the two spans only: three occurrences each, not the series' 100.
        #expect(weekly.count == 6)
        #expect(weekly.allSatisfy { first.contains($0.start) || second.contains($0.start) })
    }
}
