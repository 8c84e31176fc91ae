import Foundation
import StenoTesting
import StenoTestTraits
import Testing

/// What every `steno` run pays before it does anything: a script calling steno in a loop, or
/// a page of `--all`, waits on it each time.
@Suite("steno's start", .blocksThreads)
struct StenoStartTests {
    /// The Swift runtime and Foundation are inside the binary: loading them as shared libraries
    /// was half of a run's start (10 ms of 4 after).
    @Test func stenoCarriesItsOwnRuntime() throws {
        let steno = try TestDaemon.executable(named: "steno")
        let libraries = try runCommand("/usr/bin/ldd", [steno])
        try #require(libraries.status == 0, "\(libraries)")
        for shared in ["libswiftCore", "libFoundation", "libdispatch"] {
            #expect(!libraries.stdout.contains(shared), "steno loads \(shared) at start:\n\(libraries.stdout)")
        }
        #expect(try runCommand(steno, ["--version"]).status == 0)
    }

    /// Every command names itself: a name left for ArgumentParser to derive from the type is
    /// found by scanning every protocol conformance in the binary, on every run, for each
    /// command (a third of a run's start).
    @Test func everyCommandNamesItself() throws {
        let folder = URL(fileURLWithPath: ReadmeTour.repositoryRoot).appendingPathComponent("Sources/steno")
        let files = try #require(FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.allObjects as? [URL])
        var configurations = 0
        for file in files where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for arguments in Self.argumentsOfEachCall(to: "CommandConfiguration(", in: text) {
                configurations += 1
                #expect(arguments.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("commandName:"),
                        "\(file.lastPathComponent): a CommandConfiguration without commandName first: \(arguments.prefix(80))")
            }
        }
        #expect(configurations >= 50, "read only \(configurations) command configurations")
    }

    /// The text between the parentheses of each call to `function` (which ends with "("),
    /// skipping parentheses inside string literals.
    static func argumentsOfEachCall(to function: String, in text: String) -> [Substring] {
        var found: [Substring] = []
        var searchFrom = text.startIndex
        while let call = text.range(of: function, range: searchFrom..<text.endIndex) {
            var depth = 1
            var inString = false
            var index = call.upperBound
            while index < text.endIndex, depth > 0 {
                let character = text[index]
                if character == "\\" && inString {
                    index = text.index(after: index)
                } else if character == "\"" {
                    inString.toggle()
                } else if !inString && character == "(" {
                    depth += 1
                } else if !inString && character == ")" {
                    depth -= 1
                }
                if index < text.endIndex { index = text.index(after: index) }
            }
            found.append(text[call.upperBound..<index])
            searchFrom = index
        }
        return found
    }
}
