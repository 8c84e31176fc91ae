import Foundation
import Testing

import StenoJSON

/// The object writer writes each member kind exactly as serializing the same `JSONValue` tree
/// writes it: the list results the daemon sends are written with it and must keep the bytes
/// the tree gave (members written in sorted key order).
@Suite("JSON object writer")
struct JSONObjectWriterTests {
    /// The writer's bytes for `body` equal the tree's serialization.
    private func expect(
        _ tree: JSONValue, _ body: (inout JSONObjectWriter) -> Void, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let bytes = JSONObjectWriter.bytes(body)
        #expect(String(decoding: bytes, as: UTF8.self) == tree.serializedString, sourceLocation: sourceLocation)
    }

    @Test func everyMemberKindInSortedOrder() {
        let date = Date(timeIntervalSince1970: 1_780_272_000.25)
        let nested: JSONValue = ["b": [1, "x"], "a": .null]
        expect(
            [
                "array": [1, 2.5, "s", nil, ["k": true]], "bool": false, "date": JSONValue(date: date), "double": 0.1, "int": -7,
                "nested": nested, "object": ["inner": "v", "n": 3], "present": "p", "string": "a\"b\\c\n", "yes": true,
            ]
        ) { object in
            object.memberArray("array") { array in
                array.append(Int64(1))
                array.append(2.5)
                array.append("s")
                array.append(nil as String?)
                array.appendObject { $0.member("k", true) }
            }
            object.member("bool", false)
            object.member("date", date)
            object.member("double", 0.1)
            object.member("int", -7)
            object.member("missingDate", nil as Date?)
            object.member("missingDouble", nil as Double?)
            object.member("missingInt", nil as Int?)
            object.member("missingInt64", nil as Int64?)
            object.member("missingString", nil as String?)
            object.member("nested", nested)
            object.memberObject("object") { inner in
                inner.member("inner", "v")
                inner.member("n", Int64(3))
            }
            object.member("present", "p" as String?)
            object.member("string", "a\"b\\c\n")
            object.member("yes", true)
        }
        expect([:]) { _ in }
        expect(["only": [:]]) { $0.memberObject("only") { _ in } }
        expect(["empty": []]) { $0.memberArray("empty") { _ in } }
    }

    @Test func stringsEscapedAsTheTreeEscapesThem() {
        let texts = [
            "", "plain", "quote \" backslash \\ slash /", "\u{00}\u{01}\u{07}\u{08}\t\n\u{0B}\u{0C}\r\u{1F}\u{7F}", "é ü 日本語 🎙️👩🏽‍💻",
            "0123456789abcdef\"", String(repeating: "long text without escapes ", count: 40) + "\\",
        ]
        for text in texts {
            expect(["key \"quoted\"": .string(text), "text": .string(text)]) { object in
                object.member("key \"quoted\"", text)
                object.member("text", text)
            }
        }
    }

    @Test func numbersAtTheirEdges() {
        for number in [Int64.min, -1, 0, 1, 10, 99, 100, .max] {
            expect(["n": .int(number)]) { $0.member("n", number) }
            expect(["n": .int(number)]) { $0.member("n", Int(number)) }
        }
        let doubles: [Double] = [0, -0.0, 1, 2, -3, 0.1, 1.0 / 3, 1e-5, .leastNonzeroMagnitude, 1e21, .greatestFiniteMagnitude, .nan, .infinity, -.infinity]
        for number in doubles {
            expect(["d": .double(number)]) { $0.member("d", number) }
            expect(["d": .double(number)]) { $0.member("d", number as Double?) }
        }
        expect(["d": nil]) { $0.member("d", Double.nan) }
    }

    @Test func datesAsJSONValueWritesThem() {
        let dates = [
            Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1_780_272_000), Date(timeIntervalSince1970: 1_780_272_000.001),
            Date(timeIntervalSince1970: 1_780_272_000.9996), Date(timeIntervalSince1970: -1.5), Date(timeIntervalSince1970: 1e12),
            Date(timeIntervalSince1970: -1e12), Date(timeIntervalSince1970: .nan),
        ]
        for date in dates {
            expect(["at": JSONValue(date: date)]) { $0.member("at", date) }
        }
        expect(["at": "2026-06-01T00:00:00.250Z"]) { $0.member("at", Date(timeIntervalSince1970: 1_780_272_000.25)) }
        expect(["at": nil]) { $0.member("at", Date(timeIntervalSince1970: 1e12)) }
    }

    /// A serialized value goes in as it is; `write(into:)` appends to bytes already there.
    @Test func serializedMembersAndAppending() {
        var out = Array("prefix ".utf8)
        JSONObjectWriter.write(into: &out) { object in
            object.member("id", JSONValue.int(1))
            object.member("result", serialized: Array(#"{"items":[]}"#.utf8))
        }
        #expect(String(decoding: out, as: UTF8.self) == #"prefix {"id":1,"result":{"items":[]}}"#)
    }

    /// A `JSONObjectWritable` value writes its own members, alone, nested or in an array.
    @Test func writableValues() {
        struct Point: JSONObjectWritable {
            var x: Int64
            var label: String?
            func writeMembers(to object: inout JSONObjectWriter) {
                object.member("label", label)
                object.member("x", x)
            }
        }
        let point = Point(x: 3, label: "p")
        #expect(String(decoding: point.jsonBytes, as: UTF8.self) == #"{"label":"p","x":3}"#)
        expect(["a": ["x": 1], "b": [["label": "q", "x": 2], ["x": 4]]]) { object in
            object.member("a", object: Point(x: 1, label: nil))
            object.memberArray("b") { array in
                array.append(object: Point(x: 2, label: "q"))
                array.append(object: Point(x: 4, label: nil))
            }
            object.member("c", object: nil as Point?)
        }
    }
}
