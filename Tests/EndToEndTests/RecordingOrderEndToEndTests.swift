import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// `steno recordings` says the truth: the newest recording first by when it started, whatever
/// order the files arrived in, across pages; other orders on request; a cursor of one order is
/// refused by another instead of skipping or repeating rows.
@Suite("Recordings listed in order, against a real stenod", .blocksThreads)
struct RecordingOrderEndToEndTests {
    @Test func theNewestRecordingComesFirstOnEveryPageAndOtherOrdersOnRequest() throws {
        let daemon = try TestDaemon(config: IngestionEndToEndTests.config)
        defer { daemon.shutdown() }
        let day = ICalendarText.yesterday
        // Dropped oldest-started last, so id order and start order disagree.
        let starts: [(name: String, hours: Double)] = [("noon", 12), ("evening", 18), ("morning", 9), ("dawn", 6)]
        for (index, start) in starts.enumerated() {
            try VisibilityEndToEndTests().drop(daemon, owner: "team", start.name, at: day.addingTimeInterval(start.hours * 3600), seed: 60 + index)
        }
        let ready = try IngestionEndToEndTests.waitForRecordings(daemon) { $0.count == 4 && $0.allSatisfy { $0.status == .ready } }
        try #require(ready.count == 4, "\(daemon.log.suffix(2000))")
        let byStart = ready.sorted { ($0.recordedAt ?? .distantPast) > ($1.recordedAt ?? .distantPast) }.map(\.id)

        let client = try daemon.client()
        func paged(_ params: RecordingListParams) throws -> [Int64] {
            var params = params
            var ids: [Int64] = []
            for _ in 0..<10 {
                let page = try client.call(StenoMethods.recordingsList, params)
                ids += page.items.map(\.id)
                guard let next = page.nextCursor else { return ids }
                params.cursor = next
            }
            Issue.record("more than 10 pages")
            return ids
        }
        #expect(try paged(RecordingListParams(limit: 1)) == byStart)
        #expect(try paged(RecordingListParams(descending: false, limit: 3)) == byStart.reversed())
        #expect(try paged(RecordingListParams(sort: .id, limit: 2)) == ready.map(\.id).sorted())
        #expect(try paged(RecordingListParams(sort: .ingested, limit: 1)).count == 4)

        // A cursor continues only the order it was made for.
        let first = try client.call(StenoMethods.recordingsList, RecordingListParams(limit: 1))
        let cursor = try #require(first.nextCursor)
        #expect(throws: StenoClientError.self) {
            _ = try client.call(StenoMethods.recordingsList, RecordingListParams(sort: .length, cursor: cursor, limit: 1))
        }

        // The CLI: newest first, --reverse the other way round.
        let listed = try steno(daemon, ["recordings", "--json"])
        let ids = try JSONValue.parse(listed.stdout).arrayValue?.compactMap { $0["id"]?.intValue }
        #expect(ids == byStart, "\(listed.stdout)")
        let reversed = try steno(daemon, ["recordings", "--reverse", "--json"])
        #expect(try JSONValue.parse(reversed.stdout).arrayValue?.compactMap { $0["id"]?.intValue } == byStart.reversed())
        let table = try steno(daemon, ["recordings"])
        let rows = table.stdout.split(separator: "\n").dropFirst().compactMap { $0.split(separator: " ").first.flatMap { Int64($0) } }
        #expect(rows == byStart, "\(table.stdout)")
        let wrong = try steno(daemon, ["recordings", "--sort", "loudness"])
        #expect(wrong.status == 64 && wrong.stderr.contains("recorded"), "\(wrong.stderr)")
    }
}
