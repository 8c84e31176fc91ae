import Foundation
import StenoTesting
import StenoTestTraits
import Testing

/// An empty list tells a person what would fill it, instead of a bare header; scripts still
/// get `[]` and the CSV header.
@Suite("Empty lists", .blocksThreads, .serialized)
struct EmptyListCLITests {
    @Test func anEmptyCatalogSaysWhatToDoNext() throws {
        let daemon = try TestDaemon()
        defer { daemon.shutdown() }
        let added = try steno(daemon, ["users", "add", "alice", "--uid", String(getuid()), "--role", "admin"])
        try #require(added.status == 0, "\(added)")
        let said: [([String], String)] = [
            (["recordings"], "no recordings yet: drop an audio file into \(daemon.inboxDirectory)/alice/"),
            (["recordings", "--status", "failed"], "no recordings match"),
            (["accounts"], "no calendar accounts yet: add one with steno accounts add ics"),
            (["calendars"], "no calendars yet"),
            (["meetings"], "no meetings yet: mirror a calendar with steno accounts add"),
            (["meetings", "--title", "standup"], "no meetings yet"),
            (["links"], "no links yet"),
            (["links", "--orphaned"], "no orphaned links"),
            (["jobs", "--state", "dead"], "no jobs match"),
        ]
        for (arguments, sentence) in said {
            let result = try steno(daemon, arguments)
            #expect(result.status == 0 && result.stdout.contains(sentence), "steno \(arguments.joined(separator: " ")): \(result)")
            #expect(!result.stdout.contains("ID "), "no bare header: \(result.stdout)")
        }
        #expect(try steno(daemon, ["recordings", "--json"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
        let csv = try steno(daemon, ["accounts", "-o", "csv"]).stdout
        #expect(csv.hasPrefix("ID,") && !csv.contains("no calendar accounts"), "CSV is for scripts: \(csv)")
    }
}
