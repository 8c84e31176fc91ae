import Testing
@testable import StenoJSON

@Suite("JSON serialization and accessors")
struct JSONSerializationTests {
    @Test func compactWithSortedKeys() {
        let value: JSONValue = ["method": "x", "id": 1, "params": ["b": [true, nil], "a": 2.5], "jsonrpc": "2.0"]
        #expect(value.serializedString == #"{"id":1,"jsonrpc":"2.0","method":"x","params":{"a":2.5,"b":[true,null]}}"#)
        #expect(value.description == value.serializedString)
        #expect(value.serializedBytes == Array(value.serializedString.utf8))
    }

    @Test func writeAppends() {
        var out = Array("prefix:".utf8)
        JSONValue.array([1, "a"]).write(to: &out)
        #expect(String(decoding: out, as: UTF8.self) == #"prefix:[1,"a"]"#)
    }

    @Test func stringEscaping() {
        let value = JSONValue.string("q\" b\\ s/ n\n r\r t\t b\u{8} f\u{C} nul\u{0} us\u{1F} del\u{7F} é 😀")
        #expect(value.serializedString == #""q\" b\\ s/ n\n r\r t\t b\b f\f nul\u0000 us\u001f del"# + "\u{7F} é 😀\"")
        #expect(JSONValue.string("").serializedString == #""""#)
    }

    @Test func numbers() {
        #expect(JSONValue.int(0).serializedString == "0")
        #expect(JSONValue.int(-42).serializedString == "-42")
        #expect(JSONValue.int(.max).serializedString == "9223372036854775807")
        #expect(JSONValue.int(.min).serializedString == "-9223372036854775808")
        #expect(JSONValue.double(2).serializedString == "2.0")
        #expect(JSONValue.double(0.1).serializedString == "0.1")
        #expect(JSONValue.double(-1.5e-7).serializedString == "-1.5e-07")
        #expect(JSONValue.double(1e300).serializedString == "1e+300")
        #expect(JSONValue.double(.infinity).serializedString == "null")
        #expect(JSONValue.double(-.infinity).serializedString == "null")
        #expect(JSONValue.double(.nan).serializedString == "null")
    }

    @Test func doublesReadBackAsDoubles() throws {
        for number in [2.0, 0.1, 1e16, 1e-5, -0.0, 123456.789, Double.leastNonzeroMagnitude, Double.greatestFiniteMagnitude] {
            let text = JSONValue.double(number).serializedString
            #expect(try JSONValue.parse(text) == .double(number), "\(text)")
        }
    }

    @Test func prettyPrinted() {
        let value: JSONValue = ["b": [1, [:], []], "a": "x"]
        #expect(value.prettyPrinted() == """
        {
          "a": "x",
          "b": [
            1,
            {},
            []
          ]
        }
        """)
        #expect(JSONValue.array([1]).prettyPrinted(indent: 4) == "[\n    1\n]")
        #expect(JSONValue.int(3).prettyPrinted() == "3")
    }

    @Test func accessors() {
        let value: JSONValue = ["s": "x", "i": 3, "d": 3.0, "f": 3.5, "b": true, "n": nil, "a": [1, 2], "o": ["k": 1]]
        #expect(value["s"]?.stringValue == "x")
        #expect(value["i"]?.intValue == 3)
        #expect(value["d"]?.intValue == 3)
        #expect(value["f"]?.intValue == nil)
        #expect(value["i"]?.doubleValue == 3.0)
        #expect(value["f"]?.doubleValue == 3.5)
        #expect(value["b"]?.boolValue == true)
        #expect(value["n"]?.isNull == true)
        #expect(value["s"]?.isNull == false)
        #expect(value["a"]?.arrayValue == [1, 2])
        #expect(value["a"]?[1] == 2)
        #expect(value["a"]?[2] == nil)
        #expect(value["a"]?[-1] == nil)
        #expect(value["o"]?.objectValue == ["k": 1])
        #expect(value["missing"] == nil)
        #expect(value[0] == nil)
        #expect(JSONValue.string("x")["k"] == nil)
        #expect(JSONValue.int(1).stringValue == nil)
        #expect(JSONValue.string("1").intValue == nil)
        #expect(JSONValue.double(1e30).intValue == nil)
        #expect(value.kindName == "object")
    }

    @Test func literals() {
        let value = JSONValue(dictionaryLiteral: ("a", 1), ("a", 2))
        #expect(value == .object(["a": 2]))
        #expect((nil as JSONValue) == .null)
        #expect((true as JSONValue) == .bool(true))
        #expect((1.5 as JSONValue) == .double(1.5))
        #expect(("s" as JSONValue) == .string("s"))
        #expect(([1, "a"] as JSONValue) == .array([.int(1), .string("a")]))
    }
}
