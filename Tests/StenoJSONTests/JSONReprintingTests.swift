import StenoTesting
import Testing
@testable import StenoJSON

/// `JSONValue.prettyPrintedBytes(parsing:)` and `parse(_:reprintingMemberAt:)`: JSON text
/// pretty-printed from its bytes must accept exactly what `parse` accepts (the same error at
/// the same offset) and write exactly what `prettyPrintedBytes` writes for the parsed value.
@Suite("JSON reprinted from bytes")
struct JSONReprintingTests {
    /// The parse-then-print outcome: the text, or the error.
    static func throughTree(_ bytes: [UInt8], indent: Int = 2, maxDepth: Int = 256) -> Result<[UInt8], JSONParseError> {
        Result { () throws(JSONParseError) in try JSONValue.parse(bytes, maxDepth: maxDepth).prettyPrintedBytes(indent: indent) }
    }

    static func reprinted(_ bytes: [UInt8], indent: Int = 2, maxDepth: Int = 256) -> Result<[UInt8], JSONParseError> {
        Result { () throws(JSONParseError) in try JSONValue.prettyPrintedBytes(parsing: bytes, indent: indent, maxDepth: maxDepth) }
    }

    /// Both outcomes agree: the same bytes, or an error of the same kind at the same offset.
    static func agree(_ bytes: [UInt8], indent: Int = 2, maxDepth: Int = 256) -> Bool {
        switch (throughTree(bytes, indent: indent, maxDepth: maxDepth), reprinted(bytes, indent: indent, maxDepth: maxDepth)) {
        case (.success(let tree), .success(let direct)): return tree == direct
        case (.failure(let tree), .failure(let direct)): return tree.kind == direct.kind && tree.offset == direct.offset
        default: return false
        }
    }

    static func describe(_ bytes: [UInt8]) -> String {
        "\(String(decoding: bytes, as: UTF8.self)) → \(throughTree(bytes)) vs \(reprinted(bytes))"
    }

    @Test(arguments: [
        "[]", "{}", " [ ] ", "[[],{},[[]],{\"a\":{}}]", "0", "-0", "-0.0", "1E2", "1e-7", "12345678901234567890", "-9223372036854775808",
        "true", "null", #""plain""#, #""esc\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00""#, #""é€😀\u2028""#,
        #"{"a":1,"b":[1,2,{"c":"d"}],"e":{"f":null,"g":[]}}"#, #"{ "a" : 1 , "b" : [ 1 , 2 ] }"#,
        #"{"b":1,"a":2}"#, #"{"a":1,"a":2}"#, #"{"a":{"z":1,"y":2},"b":3}"#, #"{"x":{"a":1},"b":{"c":[{"q":1,"p":2}]}}"#,
        #"{"é":1,"e":2}"#, #"{"\u0061":1,"b":2}"#, #"{"":1}"#, #"{"a":1,"":2}"#, #"{"B":1,"a":2,"aa":3,"a b":4}"#,
        #"[{"id":1,"title":"Tab\there"},{"id":2,"title":"\u001b[31mred\u007f\u0085\u202e"}]"#,
    ])
    func knownDocumentsPrintAsTheirTrees(_ document: String) throws {
        let bytes = Array(document.utf8)
        let direct = try JSONValue.prettyPrintedBytes(parsing: bytes)
        #expect(direct == (try JSONValue.parse(bytes).prettyPrintedBytes()), "\(Self.describe(bytes))")
        #expect(Self.agree(bytes, indent: 0) && Self.agree(bytes, indent: 4), "\(Self.describe(bytes))")
    }

    @Test(arguments: [
        "", " ", "[", "[1,]", "[1 2]", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "{\"b\":1,\"a\"}", "{\"a\":1,\"b\":2,", "{1:2}",
        "01", "1.", "-", "1e", "1e400", "tru", "nul", "\"abc", "\"\\x\"", "\"\\ud800\"", "\"\\udc00\"", "\"a\u{01}b\"", "[] x",
        "{\"b\":1,\"a\":\"\u{01}\"}", "{\"a\":1,\"b\":[}", "[\"\\u12G4\"]", "{\"a\":1}}", "[1]]",
    ])
    func malformedDocumentsFailAsParseFails(_ document: String) {
        let bytes = Array(document.utf8)
        #expect(throws: JSONParseError.self) { try JSONValue.prettyPrintedBytes(parsing: bytes) }
        #expect(Self.agree(bytes), "\(Self.describe(bytes))")
    }

    @Test func invalidUTF8AndDepthFailAsParseFails() {
        let cases: [[UInt8]] = [
            [0x22, 0xC3, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], [0x5B, 0x5D, 0xFF],
            Array(#"{"a":1,"b":""#.utf8) + [0xC0, 0xAF, 0x22, 0x7D], Array(#"{"a":1,""#.utf8) + [0xE2, 0x82] + Array(#"":1}"#.utf8),
            Array(repeating: UInt8(ascii: "["), count: 300) + Array(repeating: UInt8(ascii: "]"), count: 300),
            Array(repeating: UInt8(ascii: "["), count: 256) + Array(repeating: UInt8(ascii: "]"), count: 256),
            Array(String(repeating: #"{"a":"#, count: 257).utf8) + [0x31] + Array(repeating: UInt8(ascii: "}"), count: 257),
            Array(String(repeating: #"{"b":1,"a":"#, count: 257).utf8) + [0x31] + Array(repeating: UInt8(ascii: "}"), count: 257),
        ]
        for bytes in cases {
            #expect(Self.agree(bytes), "\(Self.describe(bytes))")
            #expect(Self.agree(bytes, maxDepth: 3), "\(Self.describe(bytes))")
        }
    }

    @Test func randomValuesPrintAsTheirTrees() throws {
        var generator = JSONFuzzValues(rng: SeededRandom(seed: 0xBEEF))
        for _ in 0..<1_000 {
            let value = generator.value(depth: 0)
            // What the daemon sends: compact, keys sorted; and the same again pretty-printed.
            for text in [value.serializedBytes, value.prettyPrintedBytes()] {
                let direct = try JSONValue.prettyPrintedBytes(parsing: text)
                #expect(direct == value.prettyPrintedBytes(), "\(value)")
            }
        }
    }

    @Test func shuffledAndDuplicatedKeysPrintAsTheirTrees() {
        var rng = SeededRandom(seed: 7)
        var generator = JSONFuzzValues(rng: SeededRandom(seed: 8))
        let keys = ["a", "b", "B", "aa", "a b", "é", "e\u{301}", "\u{E9}", "", "😀", "\\u0062", "z"]
        for _ in 0..<1_000 {
            let members = (0..<Int.random(in: 1...6, using: &rng)).map { _ -> String in
                let key = keys[Int.random(in: 0..<keys.count, using: &rng)]
                let inner = Bool.random(using: &rng) ? #"{"y":1,"x":[2,{"k":"v"}]}"# : generator.value(depth: 2).serializedString
                return "\"\(key)\":\(inner)"
            }
            let bytes = Array(("[{" + members.joined(separator: ",") + "},{\"a\":1}]").utf8)
            #expect(Self.agree(bytes), "\(Self.describe(bytes))")
        }
    }

    @Test func mutatedDocumentsAgreeWithParse() {
        var rng = SeededRandom(seed: 0xF00D)
        let bases = [
            #"{"id":17,"jsonrpc":"2.0","result":{"items":[{"id":1,"title":"Q\"uote\\d \u00e9 \ud83d\ude00","n":-0.5e3},{"id":2,"t":[true,false,null]}],"nextCursor":"abc"}}"#,
            #"[{"b":1,"a":{"d":[],"c":{}}},"é€😀",1E+2,-0,12345678901234567890]"#,
        ].map { Array($0.utf8) }
        let alphabet = Array(#"{}[]:,"\ u0123456789eE+-.aeflnrstu"#.utf8) + [0x00, 0x0A, 0x7F, 0x80, 0xC3, 0xE2, 0xED, 0xF0, 0xFF]
        for round in 0..<4_000 {
            var bytes = bases[round % bases.count]
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                let position = Int.random(in: 0..<bytes.count, using: &rng)
                let byte = Bool.random(using: &rng) ? alphabet[Int.random(in: 0..<alphabet.count, using: &rng)] : UInt8.random(in: 0...255, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: bytes[position] = byte
                case 1: bytes.insert(byte, at: position)
                default: bytes.remove(at: position)
                }
            }
            #expect(Self.agree(bytes), "\(Self.describe(bytes))")
        }
    }

    @Test func randomBytesAndTruncationsAgreeWithParse() throws {
        var rng = SeededRandom(seed: 0x5EED)
        let alphabet = Array(#"{}[]:,"\ u0123456789abcdefABCDEF.eE+-truefalsenull"#.utf8) + [0x00, 0x0A, 0x80, 0xC3, 0xE2, 0xED, 0xF0, 0xFF]
        for _ in 0..<3_000 {
            let bytes: [UInt8] = (0..<Int.random(in: 0..<40, using: &rng)).map { _ in
                Bool.random(using: &rng) ? alphabet[Int.random(in: 0..<alphabet.count, using: &rng)] : UInt8.random(in: 0...255, using: &rng)
            }
            #expect(Self.agree(bytes), "\(Self.describe(bytes))")
        }
        let document = Array(#"{"a":[1,-2.5e+3,true,"esc\"\u00e9",{"c":null,"b":{}}],"b":"é€😀"}"#.utf8)
        for end in 0...document.count {
            #expect(Self.agree(Array(document[..<end])), "\(Self.describe(Array(document[..<end])))")
        }
    }

    // MARK: One member reprinted

    @Test func aReplysItemsAreReprintedAndTheRestParsed() throws {
        let reply = Array(
            #"{"id":3,"jsonrpc":"2.0","result":{"items":[{"id":1,"title":"A \"b\" \u00e9"},{"id":2,"title":"C"}],"nextCursor":"k"}}"#.utf8)
        let parsed = try JSONValue.parse(reply, reprintingMemberAt: ["result", "items"])
        let tree = try JSONValue.parse(reply)
        #expect(parsed.member == tree["result"]?["items"]?.prettyPrintedBytes())
        #expect(parsed.memberElements == 2)
        #expect(parsed.value["id"] == .int(3) && parsed.value["result"]?["nextCursor"] == .string("k"))
        #expect(parsed.value["result"]?["items"] == nil)

        let empty = try JSONValue.parse(Array(#"{"result":{"items":[]}}"#.utf8), reprintingMemberAt: ["result", "items"])
        #expect(empty.member == Array("[]".utf8) && empty.memberElements == 0)
        let notArray = try JSONValue.parse(Array(#"{"result":{"items":{"b":1}}}"#.utf8), reprintingMemberAt: ["result", "items"])
        #expect(notArray.member == Array("{\n  \"b\": 1\n}".utf8) && notArray.memberElements == nil)
        let missing = try JSONValue.parse(Array(#"{"result":[{"items":[]}],"error":{}}"#.utf8), reprintingMemberAt: ["result", "items"])
        let whole = try JSONValue.parse(#"{"result":[{"items":[]}],"error":{}}"#)
        #expect(missing.member == nil && missing.value == whole)
        // The last of duplicate members wins, as in the tree.
        let twice = try JSONValue.parse(
            Array(#"{"result":{"items":[1],"items":[2,3]},"result":{"items":[4],"x":1}}"#.utf8), reprintingMemberAt: ["result", "items"])
        #expect(twice.member == Array("[\n  4\n]".utf8) && twice.value["result"] == .object(["x": .int(1)]))
    }

    @Test func mutatedRepliesAgreeWithParse() {
        var rng = SeededRandom(seed: 99)
        let base = Array(#"{"id":17,"jsonrpc":"2.0","result":{"items":[{"a":1,"t":"x\u0041é"},{"b":[null]}],"nextCursor":null}}"#.utf8)
        for _ in 0..<3_000 {
            var bytes = base
            for _ in 0..<Int.random(in: 1...2, using: &rng) {
                bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            let tree = Result { () throws(JSONParseError) in try JSONValue.parse(bytes) }
            let split = Result { () throws(JSONParseError) in try JSONValue.parse(bytes, reprintingMemberAt: ["result", "items"]) }
            switch (tree, split) {
            case (.success(var whole), .success(let parsed)):
                let items = whole["result"]?["items"]
                #expect(parsed.member == items?.prettyPrintedBytes(), "\(Self.describe(bytes))")
                #expect(parsed.memberElements == items?.arrayValue?.count)
                if case .object(var result)? = whole["result"], case .object(var envelope) = whole {
                    result["items"] = nil
                    envelope["result"] = .object(result)
                    whole = .object(envelope)
                }
                #expect(parsed.value == whole, "\(Self.describe(bytes))")
            case (.failure(let treeError), .failure(let splitError)):
                #expect(treeError.kind == splitError.kind && treeError.offset == splitError.offset, "\(Self.describe(bytes))")
            default:
                Issue.record("one parse failed, the other did not: \(Self.describe(bytes))")
            }
        }
    }
}
