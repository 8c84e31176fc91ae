import Testing
@testable import StenoJSON

/// Parses `text` and returns the error, or nil when it parsed.
private func parseError(_ text: String) -> JSONParseError? {
    do {
        _ = try JSONValue.parse(text)
        return nil
    } catch {
        return error
    }
}

private func parseError(bytes: [UInt8]) -> JSONParseError? {
    do {
        _ = try JSONValue.parse(bytes)
        return nil
    } catch {
        return error
    }
}

@Suite("JSON parsing")
struct JSONParsingTests {
    @Test func scalars() throws {
        #expect(try JSONValue.parse("null") == .null)
        #expect(try JSONValue.parse("true") == .bool(true))
        #expect(try JSONValue.parse(" \t\r\nfalse \n") == .bool(false))
        #expect(try JSONValue.parse("\"hi\"") == .string("hi"))
        #expect(try JSONValue.parse("42") == .int(42))
        #expect(try JSONValue.parse("-7") == .int(-7))
        #expect(try JSONValue.parse("1.5") == .double(1.5))
    }

    @Test func containers() throws {
        let value = try JSONValue.parse(#"{"jsonrpc":"2.0","id":1,"method":"recordings.list","params":{"limit":[1,2.5,null,true,{}],"x":[]}}"#)
        #expect(value["jsonrpc"] == "2.0")
        #expect(value["id"] == 1)
        #expect(value["params"]?["limit"] == [1, 2.5, nil, true, [:]])
        #expect(value["params"]?["x"] == [])
        #expect(try JSONValue.parse("[ ]") == [])
        #expect(try JSONValue.parse("{ }") == [:])
        #expect(try JSONValue.parse(" [ 1 , [ 2 , [ ] ] ] ") == [1, [2, []]])
    }

    @Test func duplicateKeysLastWins() throws {
        #expect(try JSONValue.parse(#"{"a":1,"a":2}"#) == ["a": 2])
    }

    @Test func numbers() throws {
        #expect(try JSONValue.parse("0") == .int(0))
        #expect(try JSONValue.parse("-0") == .int(0))
        #expect(try JSONValue.parse("9223372036854775807") == .int(Int64.max))
        #expect(try JSONValue.parse("-9223372036854775808") == .int(Int64.min))
        #expect(try JSONValue.parse("9223372036854775808") == .double(9223372036854775808.0))
        #expect(try JSONValue.parse("-9223372036854775809") == .double(-9223372036854775809.0))
        #expect(try JSONValue.parse("1e2") == .double(100))
        #expect(try JSONValue.parse("1E+2") == .double(100))
        #expect(try JSONValue.parse("-1.25e-2") == .double(-0.0125))
        #expect(try JSONValue.parse("2.0") == .double(2))
        #expect(try JSONValue.parse("0.1") == .double(0.1))
        #expect(try JSONValue.parse("1e-400") == .double(0))
        #expect(try JSONValue.parse("123456789012345678901234567890") == .double(1.2345678901234568e29))
    }

    @Test(arguments: [
        ("01", JSONParseError.Kind.invalidNumber, 0),
        ("-01", .invalidNumber, 1),
        ("1.", .unexpectedEnd, 2),
        ("1.e5", .invalidNumber, 2),
        ("1e", .unexpectedEnd, 2),
        ("1e+", .unexpectedEnd, 3),
        ("1ex", .invalidNumber, 2),
        ("-", .unexpectedEnd, 1),
        ("-x", .invalidNumber, 1),
        ("+1", .unexpectedCharacter, 0),
        (".5", .unexpectedCharacter, 0),
        ("NaN", .unexpectedCharacter, 0),
        ("Infinity", .unexpectedCharacter, 0),
        ("-Infinity", .invalidNumber, 1),
        ("1e400", .invalidNumber, 0),
        ("-1e400", .invalidNumber, 0),
        ("0x10", .trailingData, 1),
        ("1 2", .trailingData, 2),
    ])
    func invalidNumbers(text: String, kind: JSONParseError.Kind, offset: Int) throws {
        let error = try #require(parseError(text))
        #expect(error.kind == kind, "\(text): \(error)")
        #expect(error.offset == offset, "\(text): \(error)")
    }

    @Test func escapes() throws {
        #expect(try JSONValue.parse(#""a\"b\\c\/d\be\ff\ng\rh\ti""#) == .string("a\"b\\c/d\u{8}e\u{C}f\ng\rh\ti"))
        #expect(try JSONValue.parse(#""\u0041\u00e9\u20AC""#) == .string("Aé€"))
        #expect(try JSONValue.parse(#""\ud83d\ude00""#) == .string("😀"))
        #expect(try JSONValue.parse(#""x\u0000y""#) == .string("x\u{0}y"))
        #expect(try JSONValue.parse("\"caf\u{E9} 😀 \\n\"") == .string("café 😀 \n"))
    }

    @Test(arguments: [
        (#""\x""#, JSONParseError.Kind.invalidEscape, 1),
        (#""\u12G4""#, .invalidEscape, 5),
        (#""\ud83d""#, .invalidEscape, 1),
        (#""\ud83dx""#, .invalidEscape, 1),
        (#""\ud83d\u0041""#, .invalidEscape, 1),
        (#""\ude00""#, .invalidEscape, 1),
        (#""\u12"#, .unexpectedEnd, 5),
        (#""\"#, .unexpectedEnd, 2),
        (#""abc"#, .unexpectedEnd, 4),
        ("\"a\nb\"", .unexpectedCharacter, 2),
        ("\"a\tb\"", .unexpectedCharacter, 2),
    ])
    func invalidStrings(text: String, kind: JSONParseError.Kind, offset: Int) throws {
        let error = try #require(parseError(text))
        #expect(error.kind == kind, "\(text): \(error)")
        #expect(error.offset == offset, "\(text): \(error)")
    }

    @Test(arguments: [
        ([0x22, 0xC0, 0xAF, 0x22], 1),                  // overlong '/'
        ([0x22, 0xE0, 0x80, 0xAF, 0x22], 1),            // overlong 3-byte
        ([0x22, 0xF0, 0x80, 0x80, 0xAF, 0x22], 1),      // overlong 4-byte
        ([0x22, 0xED, 0xA0, 0x80, 0x22], 1),            // UTF-8-encoded surrogate U+D800
        ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 1),      // above U+10FFFF
        ([0x22, 0xE2, 0x82, 0x22], 1),                  // truncated € before the quote
        ([0x22, 0x61, 0xE2, 0x82], 2),                  // truncated at end of input
        ([0x22, 0x80, 0x22], 1),                        // lone continuation byte
        ([0x22, 0xFF, 0x22], 1),                        // never valid
        ([0x22, 0x5C, 0x6E, 0xC3, 0x28, 0x22], 3),      // after an escape (slow path)
        ([0x5B, 0xFE, 0x5D], 1),                        // outside strings
        ([0x31, 0x20, 0xC3], 2),                        // truncated after the value
    ])
    func invalidUTF8(bytes: [UInt8], offset: Int) throws {
        let error = try #require(parseError(bytes: bytes))
        #expect(error.kind == .invalidUTF8, "\(bytes): \(error)")
        #expect(error.offset == offset, "\(bytes): \(error)")
    }

    @Test func validMultibyteUTF8() throws {
        let text = "\"é€😀\u{10FFFF}\u{FFFD}\""
        #expect(try JSONValue.parse(Array(text.utf8)) == .string("é€😀\u{10FFFF}\u{FFFD}"))
    }

    @Test(arguments: [
        ("", JSONParseError.Kind.unexpectedEnd, 0),
        ("   ", .unexpectedEnd, 3),
        ("[", .unexpectedEnd, 1),
        ("[1,", .unexpectedEnd, 3),
        ("[1,]", .unexpectedCharacter, 3),
        ("[1 2]", .unexpectedCharacter, 3),
        ("{", .unexpectedEnd, 1),
        ("{\"a\"", .unexpectedEnd, 4),
        ("{\"a\" 1}", .unexpectedCharacter, 5),
        ("{\"a\":1,}", .unexpectedCharacter, 7),
        ("{a:1}", .unexpectedCharacter, 1),
        ("{\"a\":1 \"b\":2}", .unexpectedCharacter, 7),
        ("tru", .unexpectedEnd, 3),
        ("trux", .unexpectedCharacter, 3),
        ("nul", .unexpectedEnd, 3),
        ("'a'", .unexpectedCharacter, 0),
        ("[1]]", .trailingData, 3),
        ("{} x", .trailingData, 3),
        ("\u{FEFF}1", .unexpectedCharacter, 0),
        ("// c\n1", .unexpectedCharacter, 0),
    ])
    func structuralErrors(text: String, kind: JSONParseError.Kind, offset: Int) throws {
        let error = try #require(parseError(text))
        #expect(error.kind == kind, "\(text.debugDescription): \(error)")
        #expect(error.offset == offset, "\(text.debugDescription): \(error)")
    }

    @Test func depthLimit() throws {
        let ok = String(repeating: "[", count: 256) + String(repeating: "]", count: 256)
        #expect(throws: Never.self) { try JSONValue.parse(ok) }
        let deep = String(repeating: "[", count: 257) + String(repeating: "]", count: 257)
        let error = try #require(parseError(deep))
        #expect(error.kind == .tooDeep)
        #expect(error.offset == 256)
        // Far beyond any stack: fails fast, no crash.
        let hostile = String(repeating: "[{\"a\":", count: 100_000)
        #expect(parseError(hostile)?.kind == .tooDeep)
        #expect(try JSONValue.parse("[[[1]]]", maxDepth: 3) == [[[1]]])
        #expect(throws: JSONParseError.self) { try JSONValue.parse("[[[1]]]", maxDepth: 2) }
    }

    @Test func errorDescriptionIsActionable() throws {
        let error = try #require(parseError("{\n  \"a\": 1,\n  \"b\" 2\n}"))
        #expect(error.kind == .unexpectedCharacter)
        #expect(error.line == 3)
        #expect(error.column == 7)
        #expect(error.description == "invalid JSON at byte 18 (line 3, column 7): expected ':' after an object key, found '2'")
    }

    @Test func overloadsAgree() throws {
        let text = #"{"a":[1,"x"]}"#
        let bytes = Array(text.utf8)
        let expected: JSONValue = ["a": [1, "x"]]
        #expect(try JSONValue.parse(text) == expected)
        #expect(try JSONValue.parse(bytes) == expected)
        let framed = Array("xx".utf8) + bytes + Array("\n".utf8)
        #expect(try JSONValue.parse(framed[2...]) == expected)
        let viaBuffer = try bytes.withUnsafeBytes { buffer throws(JSONParseError) in try JSONValue.parse(buffer) }
        #expect(viaBuffer == expected)
    }
}
