import StenoTesting
import Testing
@testable import StenoJSON

/// Builds random `JSONValue` trees of bounded size.
struct JSONFuzzValues {
    var rng: SeededRandom

    mutating func value(depth: Int) -> JSONValue {
        let pick = Int.random(in: 0..<(depth > 3 ? 5 : 7), using: &rng)
        switch pick {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2:
            let magnitude = [Int64(9), 1_000, Int64.max][Int.random(in: 0..<3, using: &rng)]
            return .int(Int64.random(in: -magnitude...magnitude, using: &rng))
        case 3:
            let raw = Double(bitPattern: rng.next())
            return .double(raw.isFinite ? raw : Double.random(in: -1e6...1e6, using: &rng))
        case 4: return .string(string())
        case 5: return .array((0..<Int.random(in: 0..<5, using: &rng)).map { _ in value(depth: depth + 1) })
        default:
            var object: [String: JSONValue] = [:]
            for _ in 0..<Int.random(in: 0..<5, using: &rng) { object[string()] = value(depth: depth + 1) }
            return .object(object)
        }
    }

    mutating func string() -> String {
        let pool: [Unicode.Scalar] = ["a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\u{0}", "\u{1F}", "\u{7F}",
                                      "é", "€", "\u{FFFD}", "😀", "\u{10FFFF}", "\u{2028}"]
        var text = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0..<12, using: &rng) {
            text.append(pool[Int.random(in: 0..<pool.count, using: &rng)])
        }
        return String(text)
    }
}

@Suite("JSON fuzz and properties")
struct JSONFuzzTests {
    /// Any outcome is fine as long as it is a value or a `JSONParseError` (typed throws makes
    /// the latter certain) and the process survives.
    private func survives(_ bytes: [UInt8]) -> Bool {
        do {
            _ = try JSONValue.parse(bytes)
            return true
        } catch {
            return error.offset >= 0 && error.offset <= bytes.count
        }
    }

    @Test func randomBytesNeverCrash() {
        var rng = SeededRandom(seed: 0x5EED)
        let alphabet = Array(#"{}[]:,"\ u0123456789abcdefABCDEF.eE+-truefalsenull"#.utf8) + [0x00, 0x0A, 0x80, 0xC3, 0xE2, 0xED, 0xF0, 0xFF]
        for _ in 0..<2_000 {
            let count = Int.random(in: 0..<40, using: &rng)
            let bytes: [UInt8] = (0..<count).map { _ in
                Bool.random(using: &rng) ? alphabet[Int.random(in: 0..<alphabet.count, using: &rng)] : UInt8.random(in: 0...255, using: &rng)
            }
            #expect(survives(bytes))
        }
    }

    @Test func everyTruncationOfValidDocuments() throws {
        let documents = [
            #"{"jsonrpc":"2.0","id":17,"method":"recordings.list","params":{"limit":50,"cursor":null,"with":["bob@corp.example"]}}"#,
            #"[1,-2.5e+3,true,false,null,"esc\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00","é€😀",{"":[]}]"#,
            " { \"a\" : [ 0 , -0.0 , 1E-2 ] } ",
        ]
        for document in documents {
            let bytes = Array(document.utf8)
            _ = try JSONValue.parse(bytes)
            for end in 0..<bytes.count {
                let prefix = Array(bytes[..<end])
                #expect(survives(prefix))
                if end < bytes.count - 1 {
                    // No strict prefix of these documents (short of the trailing space) is complete.
                    #expect(throws: JSONParseError.self) { try JSONValue.parse(prefix) }
                }
            }
        }
    }

    @Test func mutatedDocumentsNeverCrash() {
        var rng = SeededRandom(seed: 42)
        let base = Array(#"{"a":[1,2.5,"x\u0041",{"b":null}],"c":true}"#.utf8)
        for _ in 0..<1_000 {
            var bytes = base
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                let position = Int.random(in: 0..<bytes.count, using: &rng)
                bytes[position] = UInt8.random(in: 0...255, using: &rng)
            }
            #expect(survives(bytes))
        }
    }

    @Test func parseOfSerializeIsIdentity() throws {
        var generator = JSONFuzzValues(rng: SeededRandom(seed: 2026))
        for _ in 0..<500 {
            let value = generator.value(depth: 0)
            let compact = value.serializedBytes
            #expect(try JSONValue.parse(compact) == value, "\(value)")
            #expect(try JSONValue.parse(value.prettyPrinted()) == value)
            // Serialization is deterministic.
            #expect(try JSONValue.parse(compact).serializedBytes == compact)
        }
    }
}
