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
}
