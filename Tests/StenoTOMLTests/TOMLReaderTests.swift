import StenoJSON
import Testing
@testable import StenoTOML

private func tomlError(_ text: String) -> TOMLError? {
    do {
        _ = try TOMLReader.parse(text)
        return nil
    } catch {
        return error
    }
}

/// A config shaped like the daemon's, decoded through `JSONValueDecoder`.
private struct DaemonConfig: Decodable, Equatable {
    struct RPC: Decodable, Equatable {
        var maxFrameBytes: Int
        enum CodingKeys: String, CodingKey { case maxFrameBytes = "max_frame_bytes" }
    }
    struct Jobs: Decodable, Equatable { var workers: Int }
    struct Schedule: Decodable, Equatable { var kind: String; var cron: String }
    var socket: String
    var dataDir: String
    var inbox: String
    var socketGroup: String
    var rpc: RPC
    var jobs: Jobs
    var schedule: [Schedule]

    enum CodingKeys: String, CodingKey {
        case socket, inbox, rpc, jobs, schedule
        case dataDir = "data_dir", socketGroup = "socket_group"
    }
}

@Suite("TOML reader")
struct TOMLReaderTests {
    @Test func realisticConfig() throws {
        let text = """
        # stenod.toml
        socket = "/run/steno/stenod.sock"
        data_dir = "/var/lib/steno"
        inbox = "/srv/steno/inbox"
        socket_group = "steno"
        [rpc]
        max_frame_bytes = 1_048_576
        [jobs]
        workers = 4
        [[schedule]]
        kind = "calendar.sync"
        cron = "*/5 * * * *"
        [[schedule]]
        kind = "links.revalidate"
        cron = "0 3 * * *"
        """
        let value = try TOMLReader.parse(text)
        #expect(value["rpc"]?["max_frame_bytes"] == 1_048_576)
        #expect(value["schedule"]?[1]?["cron"] == "0 3 * * *")
        let config = try JSONValueDecoder().decode(DaemonConfig.self, from: value)
        #expect(config == DaemonConfig(
            socket: "/run/steno/stenod.sock", dataDir: "/var/lib/steno", inbox: "/srv/steno/inbox", socketGroup: "steno",
            rpc: .init(maxFrameBytes: 1_048_576), jobs: .init(workers: 4),
            schedule: [.init(kind: "calendar.sync", cron: "*/5 * * * *"), .init(kind: "links.revalidate", cron: "0 3 * * *")]))
        // CRLF files read the same.
        #expect(try TOMLReader.parse(text.replacingOccurrences(of: "\n", with: "\r\n")) == value)
    }

    @Test func keys() throws {
        let value = try TOMLReader.parse("""
        bare_key-1 = 1
        "quoted key" = 2
        'literal "key"' = 3
        "" = 4
        a.b . c = 5
        site."google.com" = true
        3.14159 = "pi"
        """)
        #expect(value == [
            "bare_key-1": 1, "quoted key": 2, "literal \"key\"": 3, "": 4, "a": ["b": ["c": 5]],
            "site": ["google.com": true], "3": ["14159": "pi"],
        ])
    }

    @Test func strings() throws {
        let value = try TOMLReader.parse(#"""
        basic = "tab\there \"q\" \\ \u00E9 \U0001F600"
        literal = 'C:\Users\nodejs\templates'
        multi = """
        Roses are red
        Violets are blue"""
        trimmed = """\
               The quick brown \
               fox."""
        quotes = """Here are two quotation marks: "". Simple enough."""
        five = """Here are fifteen quotation marks: ""\"""\"""\"""\"""\"."""
        edge = """"This," she said, "is just a pointless statement.""""
        lit_multi = '''
        The first newline is
        trimmed in raw strings.
           All other whitespace
           is preserved.
        '''
        lit_quotes = ''''That,' she said, 'is still pointless.''''
        """#)
        #expect(value["basic"] == "tab\there \"q\" \\ é 😀")
        #expect(value["literal"] == #"C:\Users\nodejs\templates"#)
        #expect(value["multi"] == "Roses are red\nViolets are blue")
        #expect(value["trimmed"] == "The quick brown fox.")
        #expect(value["quotes"] == "Here are two quotation marks: \"\". Simple enough.")
        #expect(value["five"] == "Here are fifteen quotation marks: \"\"\"\"\"\"\"\"\"\"\"\"\"\"\".")
        #expect(value["edge"] == "\"This,\" she said, \"is just a pointless statement.\"")
        #expect(value["lit_multi"] == "The first newline is\ntrimmed in raw strings.\n   All other whitespace\n   is preserved.\n")
        #expect(value["lit_quotes"] == "'That,' she said, 'is still pointless.'")
    }

    @Test func numbersAndBooleans() throws {
        let value = try TOMLReader.parse("""
        a = +99
        b = -17
        c = 0
        d = 5_349_221
        e = 0xDEAD_beef
        f = 0o755
        g = 0b1101_0110
        h = 9_223_372_036_854_775_807
        i = -9223372036854775808
        j = +1.0
        k = -0.01
        l = 5e+22
        m = 6.626e-34
        n = 224_617.445_991_228
        o = 1e06
        p = inf
        q = -inf
        r = nan
        s = true
        t = false
        """)
        #expect(value["a"] == 99)
        #expect(value["b"] == -17)
        #expect(value["c"] == 0)
        #expect(value["d"] == 5_349_221)
        #expect(value["e"] == .int(0xDEAD_BEEF))
        #expect(value["f"] == 0o755)
        #expect(value["g"] == 0b1101_0110)
        #expect(value["h"] == .int(Int64.max))
        #expect(value["i"] == .int(Int64.min))
        #expect(value["j"] == 1.0)
        #expect(value["k"] == -0.01)
        #expect(value["l"] == 5e22)
        #expect(value["m"] == 6.626e-34)
        #expect(value["n"] == 224_617.445_991_228)
        #expect(value["o"] == 1e6)
        #expect(value["p"] == .double(.infinity))
        #expect(value["q"] == .double(-.infinity))
        #expect(value["r"]?.doubleValue?.isNaN == true)
        #expect(value["s"] == true)
        #expect(value["t"] == false)
    }

    @Test func datesAndTimes() throws {
        let value = try TOMLReader.parse("""
        odt1 = 1979-05-27T07:32:00Z
        odt2 = 1979-05-27T00:32:00-07:00
        odt3 = 1979-05-27T00:32:00.999999+05:30
        odt4 = 1979-05-27 07:32:00z
        ldt = 1979-05-27T07:32:00.5
        ld = 2024-02-29
        lt = 00:32:00.999999
        in_array = [1979-05-27, 07:32:00]
        """)
        #expect(value["odt1"] == "1979-05-27T07:32:00Z")
        #expect(value["odt2"] == "1979-05-27T00:32:00-07:00")
        #expect(value["odt3"] == "1979-05-27T00:32:00.999999+05:30")
        #expect(value["odt4"] == "1979-05-27T07:32:00Z")
        #expect(value["ldt"] == "1979-05-27T07:32:00.5")
        #expect(value["ld"] == "2024-02-29")
        #expect(value["lt"] == "00:32:00.999999")
        #expect(value["in_array"] == ["1979-05-27", "07:32:00"])
    }

    @Test func arraysAndInlineTables() throws {
        let value = try TOMLReader.parse("""
        integers = [ 1, 2, 3 ]
        nested = [ [ 1, 2 ], ["a", 'b'] ]
        mixed = [ 0.1, "x", { a = 1 }, [] ]
        multi = [
          1,  # one
          2,
          # just a comment
        ]
        empty = []
        point = { x = 1, y = 2 }
        deep = { a.b = 1, a.c = { d = "e" } }
        none = {}
        """)
        #expect(value["integers"] == [1, 2, 3])
        #expect(value["nested"] == [[1, 2], ["a", "b"]])
        #expect(value["mixed"] == [0.1, "x", ["a": 1], []])
        #expect(value["multi"] == [1, 2])
        #expect(value["empty"] == [])
        #expect(value["point"] == ["x": 1, "y": 2])
        #expect(value["deep"] == ["a": ["b": 1, "c": ["d": "e"]]])
        #expect(value["none"] == [:])
    }

    @Test func tables() throws {
        let value = try TOMLReader.parse("""
        [x.y.z.w]
        a = 1
        [x]
        b = 2
        [fruit]
        apple.color = "red"
        apple.taste.sweet = true
        [fruit.apple.texture]
        smooth = true
        [[fruits]]
        name = "apple"
        [fruits.physical]
        color = "red"
        [[fruits.varieties]]
        name = "red delicious"
        [[fruits.varieties]]
        name = "granny smith"
        [[fruits]]
        name = "banana"
        [ spaced . "table" ]
        """)
        #expect(value["x"] == ["y": ["z": ["w": ["a": 1]]], "b": 2])
        #expect(value["fruit"] == ["apple": ["color": "red", "taste": ["sweet": true], "texture": ["smooth": true]]])
        #expect(value["fruits"] == [
            ["name": "apple", "physical": ["color": "red"], "varieties": [["name": "red delicious"], ["name": "granny smith"]]],
            ["name": "banana"],
        ])
        #expect(value["spaced"] == ["table": [:]])
        #expect(try TOMLReader.parse("") == [:])
        // A super-table may be defined after its sub-tables; arrays of tables create parents too.
        #expect(try TOMLReader.parse("[a.b.c]\nx = 1\n[a]\ny = 2") == ["a": ["b": ["c": ["x": 1]], "y": 2]])
        #expect(try TOMLReader.parse("[[p.q]]\n[p]\nr = 1") == ["p": ["q": [[:]], "r": 1]])
        #expect(try TOMLReader.parse("\u{FEFF}a = 1") == ["a": 1])
        #expect(try TOMLReader.parse("# only a comment\n\n   \n") == [:])
    }

    @Test(arguments: [
        ("a = 1\na = 2", 2, 1, "duplicate key a"),
        ("[t]\n[t]", 2, 1, "defined more than once"),
        ("[a]\nb = 1\n[a.b]", 3, 1, "already holds a value"),
        ("[fruit]\napple.color = 'red'\n[fruit.apple]", 3, 1, "dotted keys"),
        ("[a.b]\nx = 1\n[a]\nb.y = 2", 4, 1, "[table] header"),
        ("a = [1]\n[[a]]", 2, 1, "already defined"),
        ("[[a]]\n[a]", 2, 1, "array of tables"),
        ("a.b = 1\n[a]", 2, 1, "dotted keys"),
        ("[a.b.c.d]\nz = 9\n[a]\nb.c.d.k.t = 1", 4, 1, "[table] header"),
        ("a = [{ b = 1 }]\n[a.c]", 2, 1, "already holds a value"),
        ("t = { f = { a.c = 1 }, f.a.t = { s = true } }", 1, 24, "already holds a value"),
        ("a.b = 1\n[a.b]", 2, 1, "a.b already holds a value"),
        ("a = {b = 1}\na.c = 2", 2, 1, "already holds a value"),
        ("a = \"abc", 1, 9, "unterminated string"),
        ("a = \"ab\ncd\"", 1, 8, "unterminated string"),
        ("a = '''abc", 1, 11, "unterminated multi-line string"),
        ("a = \"\\x\"", 1, 6, "invalid escape"),
        ("a = \"\\uD800\"", 1, 6, "not a Unicode scalar"),
        ("a = 01", 1, 5, "leading zeros"),
        ("a = 1__0", 1, 5, "invalid integer"),
        ("a = _1", 1, 5, "invalid integer"),
        ("a = 9223372036854775808", 1, 5, "64 bits"),
        ("a = 0x", 1, 5, "invalid value"),
        ("a = 0b102", 1, 5, "base-2"),
        ("a = 1.", 1, 5, "invalid value"),
        ("a = .5", 1, 5, "invalid value"),
        ("a = 1e400", 1, 5, "out of range"),
        ("a = TRUE", 1, 5, "invalid value"),
        ("a = 1979-02-30", 1, 5, "invalid date"),
        ("a = 1979-05-27T25:00:00Z", 1, 5, "invalid date"),
        ("a = 07:32", 1, 5, "invalid value"),
        ("a = 1 b = 2", 1, 7, "end of the line"),
        ("a = [1 2]", 1, 8, "expected ',' or ']'"),
        ("a = [1,,2]", 1, 8, "expected a value"),
        ("a = [1", 1, 7, "unterminated array"),
        ("a = {b = 1,}", 1, 12, "trailing comma"),
        ("a = {b = 1\n}", 1, 11, "one line"),
        ("a = {b = 1, b = 2}", 1, 13, "duplicate key b"),
        ("= 1", 1, 1, "expected a key"),
        ("a", 1, 2, "expected '='"),
        ("a =", 1, 4, "expected a value"),
        ("[a", 1, 3, "expected ']'"),
        ("[[a]", 1, 5, "expected ']]'"),
        ("[]", 1, 2, "expected a key"),
        ("a = 1 # bad \u{1} comment", 1, 13, "control character"),
        ("a = \"tab\u{7F}\"", 1, 9, "control character"),
        ("a = 1\rb = 2", 1, 6, "carriage return"),
        ("\"\"\"k\"\"\" = 1", 1, 1, "multi-line"),
    ])
    func errors(text: String, line: Int, column: Int, fragment: String) throws {
        let error = try #require(tomlError(text), "\(text.debugDescription) should fail")
        #expect(error.line == line, "\(text.debugDescription): \(error)")
        #expect(error.column == column, "\(text.debugDescription): \(error)")
        #expect(error.message.contains(fragment), "\(text.debugDescription): \(error)")
    }

    @Test func errorDescription() throws {
        let error = try #require(tomlError("[jobs]\nworkers = 4\nworkers = 5\n"))
        #expect(error.description == "TOML error at line 3, column 1: duplicate key workers")
    }

    @Test func deepNestingIsAnErrorNotACrash() throws {
        let deep = "a = " + String(repeating: "[", count: 10_000)
        #expect(tomlError(deep)?.message.contains("nested deeper") == true)
        let inline = "a = " + String(repeating: "{b=", count: 10_000)
        #expect(tomlError(inline)?.message.contains("nested deeper") == true)
    }

    @Test func truncationsAndRandomInputNeverCrash() {
        let document = """
        # c
        title = "T\\u00e9st" # trailing
        [owner]
        dob = 1979-05-27T07:32:00-08:00
        [database]
        ports = [ 8000, 8001, 0x1F, 1e3 ]
        data = [ ["delta", 'phi'], [3.14] ]
        temp = { cpu = 79.5, case.x = 72 }
        text = \"\"\"
        multi \\
          line\"\"\"
        [[servers]]
        name = '''raw'''
        """
        let bytes = Array(document.utf8)
        #expect(throws: Never.self) { try TOMLReader.parse(document) }
        for end in 0...bytes.count {
            _ = tomlError(String(decoding: bytes[..<end], as: UTF8.self))
        }
        var state: UInt64 = 0x70_4D_4C
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        let alphabet = Array("[]{}=.,\"'#\\ \n\r\tabc019_+-:eExTZ\u{1}".utf8)
        for _ in 0..<2_000 {
            let count = Int(next() % 40)
            var random: [UInt8] = []
            for _ in 0..<count { random.append(alphabet[Int(next() % UInt64(alphabet.count))]) }
            _ = tomlError(String(decoding: random, as: UTF8.self))
            // Also splice random bytes into the valid document.
            var mutated = bytes
            let position = Int(next() % UInt64(mutated.count))
            mutated.insert(contentsOf: random.prefix(3), at: position)
            _ = tomlError(String(decoding: mutated, as: UTF8.self))
        }
    }
}
