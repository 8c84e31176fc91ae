import Foundation
import Logging
import StenoCore
import Testing

@testable import StenoCalendar

/// History on demand from an iCalendar file: every event of the source at any date.
@Suite("ICS history on demand")
struct ICSHistoryTests {
    @Test("a span three years back is expanded from the file and kept by later syncs; series expand for the span only")
    func oldSpan() async throws {
        let folder = NSTemporaryDirectory() + "steno-ics-history-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let now = Date()
        let old = Date(timeIntervalSince1970: ((now.timeIntervalSince1970 - 1095 * 86_400) / 3600).rounded(.down) * 3600)
        let file = folder + "/team.ics"
        try TestEvents.calendar([
            "BEGIN:VEVENT", "UID:kickoff", "DTSTAMP:20260101T000000Z", "DTSTART:\(TestEvents.utc(old))",
            "DTEND:\(TestEvents.utc(old.addingTimeInterval(3600)))", "SUMMARY:Kick-off", "END:VEVENT",
            "BEGIN:VEVENT", "UID:weekly", "DTSTAMP:20260101T000000Z", "DTSTART:\(TestEvents.utc(old.addingTimeInterval(-70 * 86_400)))",
            "DTEND:\(TestEvents.utc(old.addingTimeInterval(-70 * 86_400 + 1800)))", "RRULE:FREQ=WEEKLY",
            "EXDATE:\(TestEvents.utc(old.addingTimeInterval(-7 * 86_400)))", "SUMMARY:Weekly", "END:VEVENT",
        ]).write(toFile: file, atomically: true, encoding: .utf8)
        let mirror = InMemoryCalendarMirror()
        let account = CalendarAccount(id: 1, provider: .ics, ownerID: 1, displayName: "team", settings: ["source": file])
        let transport = HTTPTransport()
        defer { Task { try? await transport.shutdown() } }
        let provider = ICSProvider(transport: transport, defaultTimeZone: TimeZone(identifier: "UTC") ?? .current)
        let context = CalendarSyncContext(
            account: account, credentials: nil, window: ICalendar.mirroredWindow(around: now), mirror: mirror, logger: Logger(label: "ics"))
        _ = try await provider.sync(context)
        let remoteID = try #require(try await mirror.calendars().first?.remoteID)
        let inWindow = await mirror.liveEvents(calendar: remoteID).count
        #expect(!(await mirror.liveEvents(calendar: remoteID).contains { $0.meetingIdentity == "kickoff" }))

        let span = DateInterval(start: old.addingTimeInterval(-14 * 86_400), end: old.addingTimeInterval(14 * 86_400))
        let report = try await provider.fetchHistory([span], context: context)
        #expect(report.changes.inserted == 1 + 3)  // the kick-off; four weeks of the series less the cancelled one
        let live = await mirror.liveEvents(calendar: remoteID)
        #expect(live.first { $0.meetingIdentity == "kickoff" }?.start == old)
        #expect(live.count == inWindow + 4)

        // The file changes: the next sync keeps the history it does not look at.
        try String(contentsOfFile: file, encoding: .utf8).replacingOccurrences(of: "SUMMARY:Weekly", with: "SUMMARY:Weekly sync")
            .write(toFile: file, atomically: true, encoding: .utf8)
        _ = try await provider.sync(context)
        #expect(await mirror.liveEvents(calendar: remoteID).contains { $0.meetingIdentity == "kickoff" })
    }
}
