import Foundation
import StenoCore
import StenoTesting
import Testing

/// Names made from calendar titles and owners' names: kept readable, and taken as they are by
/// every common filesystem (no separators, no characters Windows refuses, no hidden or
/// option-like names, no reserved device names, bounded in bytes).
@Suite("Portable file names")
struct PortableFileNameTests {
    @Test(arguments: [
        ("2026-11-20 09.30 Design review", "2026-11-20 09.30 Design review"),
        ("Q3: plan/budget?", "Q3_ plan_budget_"),
        ("../../etc/passwd", "_.._etc_passwd"),
        ("..", "untitled"),
        ("", "untitled"),
        ("   ", "untitled"),
        ("-rf", "rf"),
        (".hidden", "hidden"),
        ("trailing dots...", "trailing dots"),
        ("CON", "_CON"),
        ("nul.txt", "_nul.txt"),
        ("com1", "_com1"),
        ("Café e\u{301}té", "Café été"),
        ("Réunion 東京 مرحبا", "Réunion 東京 مرحبا"),
        ("stand-up 😀 notes", "stand-up _ notes"),
        ("a\u{202E}gnp.exe", "a_gnp.exe"),
        ("tab\tand\nnewline\u{0}", "tab_and_newline_"),
        ("<>:\"|*", "untitled"),
    ])
    func names(_ text: String, _ expected: String) {
        #expect(PortableFileName.make(text) == expected, "\(text.debugDescription)")
    }

    @Test func theFallbackIsUsedAndMadePortableToo() {
        #expect(PortableFileName.make("///", fallback: "meeting 7") == "meeting 7")
        #expect(PortableFileName.make("///", fallback: "a/b") == "a_b")
        #expect(PortableFileName.make("x", extension: "m4a") == "x.m4a")
        #expect(PortableFileName.make("x", extension: "../") == "x.bin")
    }

    @Test func longNamesAreCutBetweenCharactersWithinTheBound() {
        let long = String(repeating: "é", count: 200)
        let made = PortableFileName.make(long)
        #expect(made.utf8.count <= PortableFileName.maximumBytes && made.utf8.count >= PortableFileName.maximumBytes - 1)
        #expect(made.allSatisfy { $0 == "é" })
    }

    /// Any text gives a name every filesystem takes.
    @Test func anyTextGivesAPortableName() {
        var random = SeededRandom(seed: 35)
        let pieces = ["a", "Z", "0", " ", ".", "-", "_", "/", "\\", ":", "*", "?", "\"", "<", ">", "|", "\u{0}", "\u{1F}", "\u{7F}", "\n",
                      "é", "e\u{301}", "\u{301}", "東", "😀", "👩‍👩‍👧", "\u{200D}", "\u{202E}", "\u{FEFF}", "CON", "lpt9", "..", "(", ")", ",",
                      "\u{FFFD}", "ß", "Ⅻ", "٣"]
        let forbidden = Set("/\\:*?\"<>|".unicodeScalars)
        for _ in 0..<20_000 {
            var text = ""
            for _ in 0..<Int.random(in: 0...12, using: &random) { text += pieces[Int.random(in: 0..<pieces.count, using: &random)] }
            let name = PortableFileName.make(text)
            let shown = "\(text.debugDescription) → \(name.debugDescription)"
            #expect(!name.isEmpty && name.utf8.count <= PortableFileName.maximumBytes, "\(shown)")
            #expect(!name.unicodeScalars.contains { forbidden.contains($0) || $0.value < 0x20 || $0.properties.generalCategory == .format }, "\(shown)")
            #expect(!name.hasPrefix(".") && !name.hasPrefix("-") && !name.hasSuffix(".") && !name.hasSuffix(" "), "\(shown)")
            let stem = name.split(separator: ".").first.map { $0.uppercased() } ?? ""
            #expect(!["CON", "PRN", "AUX", "NUL", "LPT9"].contains(stem), "\(shown)")
            #expect(name == name.precomposedStringWithCanonicalMapping, "\(shown)")
            #expect(PortableFileName.make(name) == name, "a portable name stays as it is: \(shown)")
        }
    }
}
