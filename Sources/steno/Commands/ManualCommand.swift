import ArgumentParser
import Foundation
import StenoAPI

/// `steno manual`: steno's manual page, made from its own command descriptions.
struct ManualCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "manual", abstract: "Print steno's manual page (roff), made from the commands' own help.",
        discussion: """
            Examples:
              steno manual > steno.1 && man ./steno.1              # read it
              steno manual > /usr/local/share/man/man1/steno.1     # install it (deploy/steno.1 is the same page)
            """)

    func run() throws {
        try reportingFailures {
            let root = try Self.commandDescriptions()
            Output.line(ManualPage(root: root, version: Steno.configuration.version).render())
        }
    }

    /// The argument parser describes every command as JSON when asked with
    /// `--experimental-dump-help`; steno asks itself.
    static func commandDescriptions() throws -> JSONValue {
        let own = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: own)
        process.arguments = ["--experimental-dump-help"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let root = try? JSONValue.parse(data)["command"] else {
            throw CLIFailure(message: "steno could not describe its own commands (\(own) --experimental-dump-help)", exitCode: 1)
        }
        return root
    }
}
