import ArgumentParser
import StenoAPI

/// `steno call METHOD [PARAMS]`: any JSON-RPC method, for scripts and debugging.
struct CallCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "call", abstract: "Call a JSON-RPC method directly and print its JSON result.",
        discussion: """
            Examples:
              steno call system.status                    # any method, raw JSON out
              steno call users.list '{"limit": 5}'        # with parameters (a JSON object)
              steno call rpc.discover                     # every method, described
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The method, e.g. system.status.") var method: String
    @Argument(help: "Params as a JSON object.") var params: String?

    func run() throws {
        try reportingFailures {
            var parsed: JSONValue?
            if let params {
                do {
                    parsed = try JSONValue.parse(params)
                } catch {
                    throw CLIFailure(message: "params are not valid JSON: \(error)", exitCode: 64)
                }
            }
            let result = try global.withClient { try $0.call(method, params: parsed) }
            Output.line(TerminalText.escapingJSON(result.prettyPrinted()))
        }
    }
}
