import Testing

@testable import StenoJSON

/// The array writer must write exactly what serializing the same `JSONValue` writes: the
/// catalog's `json_each` arguments and the stored warnings come from it.
@Suite("JSON array writer")
struct JSONArrayWriterTests {
    @Test func stringsAndNullsMatchTheValueSerialization() {
        let strings: [String?] = ["plain", nil, "quote \" backslash \\ slash / tab \t", "é 🎙", "\u{01}", ""]
        let expected = JSONValue.array(strings.map { $0.map(JSONValue.string) ?? .null }).serializedString
        #expect(JSONArrayWriter.text(of: strings) == expected)
    }

    @Test func integersMatchTheValueSerialization() {
        let numbers: [Int64] = [0, 1, -1, 42, .max, .min]
        #expect(JSONArrayWriter.text(of: numbers) == JSONValue.array(numbers.map(JSONValue.int)).serializedString)
        #expect(JSONArrayWriter.text(of: [Int64]()) == "[]")
        #expect(JSONArrayWriter.text(of: [String]()) == "[]")
    }

    @Test func nestedArraysAndValues() {
        var pairs = JSONArrayWriter()
        pairs.appendArray { pair in
            pair.append("a.ics")
            pair.append(nil as String?)
        }
        pairs.appendArray { _ in }
        pairs.append(JSONValue.object(["k": 1]))
        pairs.append(Int64(7))
        #expect(pairs.text == #"[["a.ics",null],[],{"k":1},7]"#)
        #expect(pairs.bytes == Array(pairs.text.utf8))
    }

    /// Objects keep the order their members were written in, and fixed-point scores keep their
    /// trailing zeros: the stored format of an ambiguous link's contenders.
    @Test func objectsInWrittenOrderWithFixedDecimals() {
        var items = JSONArrayWriter()
        for (meeting, event, score) in [(Int64(7), Int64(12), 0.8), (3, 4, 0.79951), (9, 1, -0.4), (2, 2, .nan)] {
            items.appendObject { item in
                item.member("meeting", meeting)
                item.member("event", event)
                item.member("score", score, fractionDigits: 3)
            }
        }
        items.appendObject { _ in }
        #expect(items.text == #"[{"meeting":7,"event":12,"score":0.800},{"meeting":3,"event":4,"score":0.800},{"meeting":9,"event":1,"score":-0.400},{"meeting":2,"event":2,"score":null},{}]"#)
    }
}
