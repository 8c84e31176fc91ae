import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// `steno meetings --with`: repeatable (any of them), matching an email, a domain or part of a
/// name, with a word on stderr for a `--with` that matches nobody.
@Suite("steno meetings --with", .blocksThreads, .serialized)
struct MeetingWithCLITests {
    @Test func withMatchesEmailsDomainsAndNamesAnyOfSeveral() throws {
        let daemon = try TestDaemon()
        defer { daemon.shutdown() }
        #expect(try steno(daemon, ["users", "add", "alice", "--email", "alice@example.com"]).status == 0)
        let at = { (hour: Double) in ICalendarText.yesterday.addingTimeInterval(hour * 3600) }
        let events =
            ICalendarText.event(
                uid: "acme", title: "Acme renewal", start: at(9), end: at(10), organizer: "alice@example.com",
                attendees: ["CN=Robert Tables:mailto:bobby@acme.example"])
            + ICalendarText.event(
                uid: "corp", title: "Corp sync", start: at(11), end: at(12), organizer: "alice@example.com",
                attendees: ["CN=Carol Jones:mailto:carol@corp.example"])
            + ICalendarText.event(
                uid: "tables", title: "Tables and chairs", start: at(13), end: at(14), organizer: "alice@example.com",
                attendees: ["CN=Dan:mailto:dan@example.com"])
        let calendar = daemon.root + "/alice.ics"
        try ICalendarText.calendar(events).write(toFile: calendar, atomically: true, encoding: .utf8)
        let added = try steno(daemon, ["accounts", "add", "ics", calendar, "--owner", "alice", "--wait"])
        try #require(added.status == 0, "\(added.stderr)")

        func titles(_ arguments: [String]) throws -> (titles: Set<String>, stderr: String) {
            let result = try steno(daemon, ["meetings", "--json"] + arguments)
            try #require(result.status == 0, "\(arguments): \(result.stderr)")
            let meetings = try JSONValueDecoder().decode([MeetingSummary].self, from: try JSONValue.parse(result.stdout))
            return (Set(meetings.map(\.title)), result.stderr)
        }
        #expect(try titles(["--with", "carol@corp.example"]).titles == ["Corp sync"])
        #expect(try titles(["--with", "robert"]).titles == ["Acme renewal"], "part of a name, any case")
        #expect(try titles(["--with", "Robert Tab"]).titles == ["Acme renewal"])
        #expect(try titles(["--with", "tables"]).titles == ["Acme renewal"], "a name, not a title")
        #expect(try titles(["--with", "@acme.example"]).titles == ["Acme renewal"])
        #expect(try titles(["--with", "corp.example"]).titles == ["Corp sync"])
        let both = try titles(["--with", "corp.example", "--with", "Robert"])
        #expect(both.titles == ["Acme renewal", "Corp sync"] && both.stderr.isEmpty, "\(both)")
        let typo = try titles(["--with", "carol@corp.exmaple", "--with", "dan"])
        #expect(typo.titles == ["Tables and chairs"])
        #expect(typo.stderr.contains("carol@corp.exmaple") && !typo.stderr.contains("dan "), "\(typo.stderr)")
        let nothing = try steno(daemon, ["meetings", "--with", "%"])
        #expect(nothing.status == 64, "\(nothing.stderr)")
    }
}
