import ArgumentParser
import Foundation
import StenoAPI
import StenoCore

/// Options every command takes.
struct GlobalOptions: ParsableArguments {
    @Option(
        name: .long,
        help: """
            The daemon's socket (default: STENO_SOCKET, else socket = "PATH" in ~/.config/steno/client.toml or \
            /etc/steno/client.toml, else $XDG_RUNTIME_DIR/steno/stenod.sock or /run/steno/stenod.sock, whichever answers).
            """)
    var socket: String?

    @Flag(name: .long, help: "Print JSON instead of a table (same as --output json).")
    var json = false

    @Option(
        name: [.customShort("o"), .long],
        help: "Output format: table (fits the terminal), wide (every column, nothing cut), json or csv.")
    var output: OutputFormat?

    @Option(
        name: .long,
        help: "The time zone of printed times and of dates you type: Europe/Paris, UTC or +01:00 (default: TZ, else the system's).")
    var tz: String?

    /// Checks `--tz` and makes it the zone every printed time is written in.
    func validate() throws {
        guard let zone = TimeZoneArgument.zone(flag: tz, environment: ProcessInfo.processInfo.environment) else {
            throw ValidationError("--tz \(tz ?? ""): no such time zone; write an IANA name (Europe/Paris), UTC, or an offset (+01:00)")
        }
        Output.timeZone = zone
    }

    /// The zone of `--tz`, else `TZ`, else the system's.
    var timeZone: TimeZone { TimeZoneArgument.zone(flag: tz, environment: ProcessInfo.processInfo.environment) ?? .current }

    /// Moves global options written before the subcommand to the end, where every command's
    /// `GlobalOptions` group reads them: `steno --socket S users list` = `steno users list --socket S`.
    static func hoisted(_ arguments: [String]) -> [String] {
        var leading: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--json" {
                leading.append(argument)
                index += 1
            } else if ["--socket", "--output", "-o", "--tz"].contains(argument), index + 1 < arguments.count {
                leading += [argument, arguments[index + 1]]
                index += 2
            } else if argument.hasPrefix("--socket=") || argument.hasPrefix("--output=") || argument.hasPrefix("--tz=") {
                leading.append(argument)
                index += 1
            } else {
                break
            }
        }
        guard !leading.isEmpty, index < arguments.count else { return arguments }
        let rest = Array(arguments[index...])
        // Options must stay before a `--` terminator.
        if let terminator = rest.firstIndex(of: "--") {
            return Array(rest[..<terminator]) + leading + Array(rest[terminator...])
        }
        return rest + leading
    }

    /// The format chosen by --output or --json.
    var format: OutputFormat { output ?? (json ? .json : .table) }

    /// Finds the daemon (see `SocketDiscovery`), runs `body`, and turns failures into a
    /// message and the documented exit code.
    func withClient<T>(_ body: (StenoClient) throws -> T) throws -> T {
        try Self.withClient(socket: socket, body)
    }

    /// ``withClient(_:)`` for the socket named by `socket` (the `--socket` flag, or nil).
    static func withClient<T>(socket: String?, _ body: (StenoClient) throws -> T) throws -> T {
        do {
            let candidates = try SocketDiscovery.candidates(flag: socket, environment: ProcessInfo.processInfo.environment)
            let client = try SocketDiscovery.connect(candidates)
            return try body(client)
        } catch let error as StenoClientError {
            throw CLIFailure(error)
        } catch let error as ClientConfigError {
            throw CLIFailure(message: error.description, exitCode: 1)
        }
    }
}

/// Output formats of list and show commands.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case table, wide, json, csv

    /// Whether the output is for people (a table and sentences) rather than programs.
    var isHuman: Bool { self == .table || self == .wide }
}

/// A failure already explained to the user, carrying its exit code.
struct CLIFailure: Error, CustomStringConvertible {
    var message: String
    var exitCode: Int32

    init(message: String, exitCode: Int32) {
        self.message = message
        self.exitCode = exitCode
    }

    init(_ error: StenoClientError) {
        self.message = error.description
        switch error {
        case .daemonNotRunning: exitCode = 3
        case .permissionDenied: exitCode = 5
        case .rpc(let rpcError):
            switch rpcError.code {
            case RPCError.notFoundCode: exitCode = 4
            case RPCError.notPermittedCode, RPCError.unknownUserCode: exitCode = 5
            case RPCError.invalidParamsCode: exitCode = 64
            default: exitCode = 1
            }
        default: exitCode = 1
        }
    }

    var description: String { message }
}

extension ParsableCommand {
    /// Runs a command body, printing a `CLIFailure` as one line on stderr and exiting with its code.
    func reportingFailures(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let failure as CLIFailure {
            FileHandle.standardError.write(Data("steno: \(TerminalText.clean(failure.message))\n".utf8))
            throw ExitCode(failure.exitCode)
        }
    }
}

/// The connection options alone, for a command whose own `-o` names a file rather than an
/// output format (`steno recordings export ID -o FILE`).
struct ConnectionOptions: ParsableArguments {
    @Option(name: .long, help: "The daemon's socket (found as for every other command when absent).")
    var socket: String?
}
