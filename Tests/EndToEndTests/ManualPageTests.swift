import Foundation
import StenoAPI
import StenoTesting
import StenoTestTraits
import Testing

/// `steno manual` and the examples of every `--help`: made from the commands themselves, and
/// shipped as deploy/steno.1.
@Suite("Manual page and examples", .blocksThreads)
struct ManualPageTests {
    static let shipped = ReadmeTour.repositoryRoot + "/deploy/steno.1"

    /// Every command steno shows, by its path ("steno accounts add ics"), with its description.
    static func commands() throws -> [(path: String, description: JSONValue)] {
        let dump = try runCommand(try TestDaemon.executable(named: "steno"), ["--experimental-dump-help"])
        try #require(dump.status == 0, "\(dump)")
        let root = try #require(try JSONValue.parse(dump.stdout)["command"])
        var found: [(String, JSONValue)] = []
        func walk(_ command: JSONValue, _ path: [String]) {
            guard command["shouldDisplay"]?.boolValue != false, let name = command["commandName"]?.stringValue, name != "help" else { return }
            found.append(((path + [name]).joined(separator: " "), command))
            for subcommand in command["subcommands"]?.arrayValue ?? [] { walk(subcommand, path + [name]) }
        }
        walk(root, [])
        return found
    }

    @Test func everyCommandsHelpEndsWithExamplesOfItself() throws {
        let commands = try Self.commands()
        #expect(commands.count >= 50, "\(commands.count) commands")
        for (path, description) in commands {
            let discussion = description["discussion"]?.stringValue ?? ""
            let examples = discussion.components(separatedBy: "Examples:\n").dropFirst().first ?? ""
            #expect(!examples.isEmpty, "steno \(path.dropFirst(6)) --help has no examples")
            // Each example is a command line of steno (or a shell line running it).
            let lines = examples.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.hasPrefix("#") && !$0.hasPrefix("--") && !$0.isEmpty }
            #expect(lines.allSatisfy { $0.contains("steno ") }, "\(path): \(lines)")
            // A group's examples may use its subcommands; a leaf's show the leaf itself.
            // `accounts add device` only points at `steno devices`, where phones are added.
            if description["subcommands"]?.arrayValue?.isEmpty ?? true, path != "steno", path != "steno accounts add device" {
                #expect(lines.contains { $0.contains(path) || $0.contains(path.replacingOccurrences(of: " list", with: "")) },
                        "\(path): no example runs it: \(lines)")
            }
        }
    }

    @Test func theShippedManualPageIsTheOneStenoMakes() throws {
        let made = try runCommand(try TestDaemon.executable(named: "steno"), ["manual"])
        try #require(made.status == 0, "\(made)")
        let shipped = try String(contentsOfFile: Self.shipped, encoding: .utf8)
        #expect(made.stdout == shipped, "deploy/steno.1 is not what the commands say; run: swift run steno manual > deploy/steno.1")
        for (path, _) in try Self.commands() where path != "steno" {
            #expect(made.stdout.contains(".SS \"\(path.replacingOccurrences(of: "-", with: "\\-"))\""), "the manual has no section for \(path)")
        }
        #expect(made.stdout.hasPrefix(".TH STENO 1 "))
    }

    @Test(.enabled(if: TestRequirement.runs(when: TestRequirement.hasExecutable("/usr/bin/groff")), "needs groff to render the page"))
    func theManualPageRendersWithoutWarnings() throws {
        let rendered = try runCommand("/usr/bin/groff", ["-man", "-ww", "-Tutf8", Self.shipped])
        #expect(rendered.status == 0)
        #expect(rendered.stderr.isEmpty, "\(rendered.stderr)")
        #expect(rendered.stdout.contains("steno accounts add caldav"))
    }
}
