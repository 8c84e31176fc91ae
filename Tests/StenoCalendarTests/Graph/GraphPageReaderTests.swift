import Foundation
import StenoTesting
import Testing

@testable import StenoCalendar

/// The page reader: what it keeps, what it skips, and that bad input is an error with an
/// offset — never a crash, a hang or unbounded recursion.
@Suite("Graph page reader")
struct GraphPageReaderTests {
    @Test("escapes, nulls, unknown keys of every kind, and removals")
    func shapes() throws {
        let page = try GraphPageReader.page(Data(#"""
            { "@odata.context": "x", "value": [
              {"id": "e1", "subject": "Caf\u00e9 \"Q4\" \ud83d\ude00 \/ \\ \n", "extra": {"a": [1, -2.5e3, true, false, null, {"b": []}]},
               "isAllDay": false, "isCancelled": null, "attendees": null, "location": null, "onlineMeeting": {"joinUrl": null},
               "organizer": {"emailAddress": {"address": "ann@x.com", "name": null}},
               "start": {"dateTime": "2026-01-01T10:00:00.0000000", "timeZone": "UTC"}, "end": null},
              {"@odata.type": "#microsoft.graph.event", "id": "gone", "@removed": {"reason": "deleted"}}
            ], "@odata.deltaLink": "http://127.0.0.1/d?$deltatoken=a" }
            """#.utf8))
        #expect(page.value.count == 2 && page.deltaLink == "http://127.0.0.1/d?$deltatoken=a" && page.nextLink == nil)
        let first = page.value[0]
        #expect(first.subject == "Café \"Q4\" 😀 / \\ \n")
        #expect(first.isAllDay == false && first.isCancelled == nil && first.attendees?.isEmpty == true && first.location == nil)
        #expect(first.onlineMeeting != nil && first.onlineMeeting?.joinUrl == nil)
        #expect(first.organizer?.emailAddress?.address == "ann@x.com" && first.start?.timeZone == "UTC" && first.end == nil)
        #expect(page.value[1].removed?.reason == "deleted" && page.value[1].id == "gone")
    }

    @Test("member names are matched by their decoded bytes, escaped or not")
    func escapedNames() throws {
        let page = try GraphPageReader.page(Data(#"""
            {"v\u0061lue": [{"\u0069d": "e1", "sub\u006Aect": "Standup", "subjects": "not this", "i": "nor this",
                             "location": {"display\u004eame": "Room 1"}}]}
            """#.utf8))
        #expect(page.value.count == 1 && page.value[0].id == "e1" && page.value[0].subject == "Standup")
        #expect(page.value[0].location?.displayName == "Room 1")
    }

    @Test("a quote, backslash or control character is found wherever it falls in the eight-byte words scanned")
    func stringEnds() throws {
        for length in 0..<40 {
            for position in 0..<length {
                var plain = Array(repeating: UInt8(ascii: "a"), count: length)
                plain[position] = 0xC3  // the first byte of "é"…
                if position + 1 < length { plain[position + 1] = 0xA9 } else { plain[position] = UInt8(ascii: "b") }
                let expected = String(decoding: plain, as: UTF8.self)
                #expect(try Self.subject(of: plain) == expected)

                var escaped = Array(repeating: UInt8(ascii: "a"), count: length)
                escaped.replaceSubrange(position...position, with: Array(#"\""#.utf8))
                #expect(try Self.subject(of: escaped) == String(repeating: "a", count: position) + "\"" + String(repeating: "a", count: length - position - 1))

                var control = Array(repeating: UInt8(ascii: "a"), count: length)
                control[position] = 0x1F
                #expect(throws: GraphPageReader.Failure.self) { try Self.subject(of: control) }
            }
        }
    }

    /// The subject of a one-event page whose subject is `bytes` as written between the quotes.
    private static func subject(of bytes: [UInt8]) throws -> String? {
        let page = try GraphPageReader.page(Data(#"{"value": [{"id": "e", "subject": ""#.utf8 + bytes + #""}]}"#.utf8))
        return page.value.first?.subject
    }

    @Test("malformed input is refused with an offset", arguments: [
        #"{"value": [{"id": "a"}]"#, #"{"value": [{"id": 1}]}"#, #"{"value": [{}]}"#, #"{"nextLink": "x"}"#,
        #"{"value": [{"id": "a\x"}]}"#, #"{"value": [{"id": "\ud800"}]}"#, #"{"value": [], "x": tru}"#, #"{"value": []} x"#,
        "{\"value\": [{\"id\": \"a\u{01}\"}]}",
    ])
    func malformed(text: String) {
        #expect(throws: GraphPageReader.Failure.self) { try GraphPageReader.page(Data(text.utf8)) }
    }

    @Test("deep nesting is refused, not recursed into")
    func depth() {
        let deep = #"{"value": [], "x": "# + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + "}"
        #expect(throws: GraphPageReader.Failure.self) { try GraphPageReader.page(Data(deep.utf8)) }
    }

    @Test("random bytes and mutations of a real page never crash", arguments: 0..<4)
    func fuzz(seed: UInt64) {
        var generator = SeededRandom(seed: seed)
        let page = Array(#"{"value":[{"id":"e1","subject":"S\u00e9","attendees":[{"type":"required","status":{"response":"accepted"},"emailAddress":{"address":"a@b.c"}}],"start":{"dateTime":"2026-07-01T09:30:00.0000000","timeZone":"UTC"}}],"@odata.nextLink":"http://x"}"#.utf8)
        for _ in 0..<3000 {
            var mutated = page
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let position = Int.random(in: 0..<mutated.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: mutated[position] = UInt8.random(in: 0...255, using: &generator)
                case 1: mutated.remove(at: position)
                default: mutated.insert(Array("{}[],:\"\\u".utf8).randomElement(using: &generator) ?? 0x20, at: position)
                }
                if mutated.isEmpty { break }
            }
            _ = try? GraphPageReader.page(Data(mutated))
            _ = try? GraphPageReader.event(Data(mutated.prefix(Int.random(in: 0...mutated.count, using: &generator))))
        }
    }
}
