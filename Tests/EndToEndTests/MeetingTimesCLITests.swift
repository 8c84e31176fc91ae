import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// `steno meetings` as an agenda: today and the next 7 days by default, times with their
/// zone (`--tz`, `TZ`), all-day meetings as dates, date words and offsets, `--to` through the
/// whole day, meetings deleted at the source left out, `--sort` and `--reverse`.
@Suite("steno meetings times", .blocksThreads, .serialized)
struct MeetingTimesCLITests {
    /// Midnight UTC today.
    static let today = ICalendarText.yesterday.addingTimeInterval(86_400)

    static func day(_ offset: Int) -> Date { today.addingTimeInterval(Double(offset) * 86_400) }

    /// `YYYY-MM-DD` in UTC.
    static func date(_ date: Date) -> String { String(ICalendarText.utc(date).prefix(8)).replacingOccurrences(
        of: #"(\d{4})(\d{2})(\d{2})"#, with: "$1-$2-$3", options: .regularExpression) }

    /// Days from today (UTC) to the next Friday, today included.
    static var daysToFriday: Int {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        return (6 - calendar.component(.weekday, from: today) + 7) % 7
    }

    /// An all-day VEVENT over `days` days from `first`.
    static func allDay(uid: String, title: String, first: Date, days: Int) -> [String] {
        let value = { (date: Date) in String(ICalendarText.utc(date).prefix(8)) }
        return ["BEGIN:VEVENT", "UID:\(uid)", "DTSTAMP:20260101T000000Z", "DTSTART;VALUE=DATE:\(value(first))",
                "DTEND;VALUE=DATE:\(value(first.addingTimeInterval(Double(days) * 86_400)))", "SUMMARY:\(title)",
                "ORGANIZER:mailto:alice@example.com", "END:VEVENT"]
    }

    /// The calendar: yesterday, today, Friday, in ten days, an all-day offsite, and two
    /// meetings that a later version of the file drops (one of them with a recording).
    static func events(dropping: Bool) -> [String] {
        let at = { (day: Int, hour: Double) in Self.day(day).addingTimeInterval(hour * 3600) }
        var events = ICalendarText.event(uid: "review", title: "Yesterday review", start: at(-1, 10), end: at(-1, 11), organizer: "alice@example.com")
            + ICalendarText.event(uid: "standup", title: "Today standup", start: at(0, 9), end: at(0, 9.25), organizer: "alice@example.com")
            + ICalendarText.event(
                uid: "friday", title: "Friday planning", start: at(daysToFriday, 14), end: at(daysToFriday, 15), organizer: "alice@example.com")
            + ICalendarText.event(uid: "later", title: "In ten days", start: at(10, 10), end: at(10, 11), organizer: "alice@example.com")
            + allDay(uid: "offsite", title: "Offsite", first: day(2), days: 2)
        if !dropping {
            events += ICalendarText.event(uid: "dropped", title: "Dropped sync", start: at(1, 8), end: at(1, 9), organizer: "alice@example.com")
                + ICalendarText.event(
                    uid: "recorded", title: "Dropped but recorded", start: at(0, 11), end: at(0, 12), organizer: "alice@example.com")
        }
        return events
    }

    /// A daemon with that calendar synced, a recording linked to "Dropped but recorded", and
    /// both dropped meetings then deleted at the source.
    static func daemon() throws -> TestDaemon {
        let daemon = try TestDaemon(config: "[watcher]\nsettle_seconds = 3600\n")
        #expect(try steno(daemon, ["users", "add", "alice", "--email", "alice@example.com"]).status == 0)
        let calendar = daemon.root + "/alice.ics"
        try ICalendarText.calendar(events(dropping: false)).write(toFile: calendar, atomically: true, encoding: .utf8)
        let added = try steno(daemon, ["accounts", "add", "ics", calendar, "--owner", "alice", "--wait"])
        try #require(added.status == 0, "\(added.stderr)")
        let folder = daemon.inboxDirectory + "/alice"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let file = folder + "/standup.wav"
        try IngestionEndToEndTests.wav(seed: 7).write(to: URL(fileURLWithPath: file))
        let ingested = try steno(daemon, ["ingest", file, "--wait", "--timeout", "60"])
        try #require(ingested.status == 0, "\(ingested.stderr)")
        let recording = try #require(try JSONValue.parse(try steno(daemon, ["recordings", "--json"]).stdout).arrayValue?.first?["id"]?.intValue)
        let recorded = try #require(try meetings(daemon, ["--title", "Dropped but recorded"]).first?.id)
        let linked = try steno(daemon, ["link", String(recording), String(recorded), "--force"])
        try #require(linked.status == 0, "\(linked.stderr)")
        try ICalendarText.calendar(events(dropping: true)).write(toFile: calendar, atomically: true, encoding: .utf8)
        let synced = try steno(daemon, ["sync", "--wait"])
        try #require(synced.status == 0, "\(synced.stderr)")
        return daemon
    }

    /// `steno meetings ARGS --json`, decoded.
    static func meetings(_ daemon: TestDaemon, _ arguments: [String]) throws -> [MeetingSummary] {
        let result = try steno(daemon, ["meetings"] + arguments + ["--json", "--tz", "UTC"])
        try #require(result.status == 0, "\(arguments): \(result.stderr)")
        return try JSONValueDecoder().decode([MeetingSummary].self, from: try JSONValue.parse(result.stdout))
    }

    @Test func theDefaultListIsTodayAndTheNextSevenDaysSoonestFirstWithoutGoneMeetings() throws {
        let daemon = try Self.daemon()
        defer { daemon.shutdown() }
        let titles = try Self.meetings(daemon, []).map(\.title)
        #expect(titles.first == "Today standup", "\(titles)")
        #expect(titles.contains("Friday planning") && titles.contains("Offsite"), "\(titles)")
        #expect(!titles.contains("Yesterday review") && !titles.contains("In ten days"), "outside today + 7 days: \(titles)")
        #expect(!titles.contains("Dropped sync"), "deleted at the source: \(titles)")
        #expect(titles.contains("Dropped but recorded"), "gone, but it holds a recording: \(titles)")
        let reversed = try Self.meetings(daemon, ["--reverse"]).map(\.title)
        #expect(reversed == titles.reversed(), "\(reversed)")
        let byTitle = try Self.meetings(daemon, ["--sort", "title"]).map(\.title)
        #expect(byTitle == titles.sorted { $0.localizedCaseInsensitiveCompare($1) == .orderedAscending }, "\(byTitle)")
        let table = try steno(daemon, ["meetings", "--tz", "UTC", "-o", "wide"]).stdout
        #expect(table.contains("Dropped but recorded (gone)"), "\(table)")
        let everything = try Self.meetings(daemon, ["--include-gone", "--from", "-30d", "--to", "+30d"]).map(\.title)
        #expect(everything.contains("Dropped sync") && everything.contains("Yesterday review"), "\(everything)")
        // A filter without dates looks at every meeting, newest first.
        let reviews = try Self.meetings(daemon, ["--title", "review"]).map(\.title)
        #expect(reviews == ["Yesterday review"], "\(reviews)")
        let all = try Self.meetings(daemon, ["--title", "a"]).compactMap(\.start)
        #expect(all == all.sorted(by: >) && all.count >= 4, "\(all)")
    }

    @Test func dateWordsAndOffsetsAndToIncludesTheWholeDay() throws {
        let daemon = try Self.daemon()
        defer { daemon.shutdown() }
        #expect(try Self.meetings(daemon, ["--on", "friday"]).map(\.title).contains("Friday planning"))
        #expect(try Self.meetings(daemon, ["--on", "yesterday"]).map(\.title) == ["Yesterday review"])
        let throughToday = try Self.meetings(daemon, ["--from", "yesterday", "--to", "today"]).map(\.title)
        #expect(throughToday.contains("Yesterday review") && throughToday.contains("Today standup"), "\(throughToday)")
        let offsets = try Self.meetings(daemon, ["--from", "-1d", "--to", "+10d"]).map(\.title)
        #expect(offsets.contains("Yesterday review") && offsets.contains("In ten days"), "\(offsets)")
        for words in [["--on", "next friday"], ["--on", "last week"], ["--from", "this week"], ["--to", "next month"], ["--from", "-2w"]] {
            let result = try steno(daemon, ["meetings", "--tz", "UTC"] + words)
            #expect(result.status == 0, "\(words): \(result.stderr)")
        }
        let wrong = try steno(daemon, ["meetings", "--from", "someday"])
        #expect(wrong.status == 64 && wrong.stderr.contains("someday"), "\(wrong.stderr)")
        let swapped = try steno(daemon, ["meetings", "--from", "tomorrow", "--to", "yesterday"])
        #expect(swapped.status == 64, "\(swapped.stderr)")
    }

    @Test func theFirstAndLastYearsAreBoundsInAnyZone() throws {
        let daemon = try Self.daemon()
        defer { daemon.shutdown() }
        // Midnight of 0001-01-01 in Berlin, and the end of 9999-12-31 in Los Angeles, lie just
        // outside the years an instant on the wire can name: still whole-history bounds.
        for zone in ["Europe/Berlin", "America/Los_Angeles", "Pacific/Kiritimati"] {
            let result = try steno(daemon, ["meetings", "--from", "0001-01-01", "--to", "9999-12-31", "--tz", zone, "--json"])
            #expect(result.status == 0, "\(zone): \(result.stderr)")
            let titles = (try? JSONValue.parse(result.stdout).arrayValue?.compactMap { $0["title"]?.stringValue }) ?? nil
            #expect(titles?.contains("Yesterday review") == true && titles?.contains("In ten days") == true, "\(zone): \(result.stdout)")
            let on = try steno(daemon, ["meetings", "--on", "9999-12-31", "--tz", zone])
            #expect(on.status == 0, "\(zone): \(on.stderr)")
        }
        // A request this side cannot write is this side's fault, not the daemon's.
        #expect {
            _ = try daemon.client().call(StenoMethods.meetingsList, MeetingListParams(from: Date(timeIntervalSince1970: 1e12)))
        } throws: { error in
            guard let error = error as? StenoClientError, case .requestNotEncodable(let method, _) = error else { return false }
            return method == "meetings.list" && error.description.contains("nothing was sent to stenod")
        }
    }

    @Test func timesCarryTheirZoneAndAllDayMeetingsAreDates() throws {
        let daemon = try Self.daemon()
        defer { daemon.shutdown() }
        let today = Self.date(Self.today)
        let utc = try steno(daemon, ["meetings", "--tz", "UTC", "-o", "wide"]).stdout
        #expect(utc.contains("\(today) 09:00 +00:00"), "\(utc)")
        // By title, not the default range: from 23:00 UTC "today" in +01:00 is tomorrow.
        let paris = try steno(daemon, ["meetings", "--title", "standup", "--tz", "+01:00", "-o", "wide"]).stdout
        #expect(paris.contains("\(today) 10:00 +01:00"), "\(paris)")
        let tokyo = try runCommand(
            try TestDaemon.executable(named: "steno"), ["--socket", daemon.socketPath, "meetings", "--title", "standup", "-o", "wide"],
            environment: ["TZ": "Asia/Tokyo"])
        #expect(tokyo.stdout.contains("\(today) 18:00 +09:00"), "\(tokyo.stdout)")
        let badZone = try steno(daemon, ["meetings", "--tz", "Mars/Olympus"])
        #expect(badZone.status == 64 && badZone.stderr.contains("Mars/Olympus"), "\(badZone.stderr)")
        let offsite = try #require(try Self.meetings(daemon, ["--title", "Offsite"]).first)
        #expect(offsite.isAllDay && offsite.firstDay == Self.date(Self.day(2)) && offsite.lastDay == Self.date(Self.day(3)), "\(offsite)")
        let row = try #require(utc.split(separator: "\n").first { $0.contains("Offsite") })
        #expect(row.contains(Self.date(Self.day(2))) && row.contains(Self.date(Self.day(3))) && !row.contains("00:00"), "\(row)")
        let show = try steno(daemon, ["meetings", "show", String(offsite.id), "--tz", "UTC"]).stdout
        #expect(show.contains("\(Self.date(Self.day(2))) → \(Self.date(Self.day(3)))") && !show.contains("00:00"), "\(show)")
        let jobs = try steno(daemon, ["jobs", "--tz", "UTC"]).stdout
        #expect(jobs.contains("+00:00"), "\(jobs)")
    }

    @Test func jobsAreListedNewestFirst() throws {
        let daemon = try Self.daemon()
        defer { daemon.shutdown() }
        let ids = { (arguments: [String]) throws -> [Int64] in
            try JSONValue.parse(try steno(daemon, ["jobs", "--json", "--all"] + arguments).stdout).arrayValue?.compactMap { $0["id"]?.intValue } ?? []
        }
        let newest = try ids([])
        #expect(newest.count >= 3 && newest == newest.sorted(by: >), "\(newest)")
        #expect(try ids(["--reverse"]) == newest.reversed())
        // Pages continue in the same order.
        let paged = try JSONValue.parse(try steno(daemon, ["jobs", "--json", "--limit", "2"]).stdout).arrayValue?.compactMap { $0["id"]?.intValue }
        #expect(paged == Array(newest.prefix(2)))
    }
}
