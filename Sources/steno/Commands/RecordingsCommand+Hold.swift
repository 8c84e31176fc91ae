import ArgumentParser
import Foundation
import StenoAPI
import StenoCore

extension RecordingsCommand {
    /// `steno recordings hold [ID…] [--reason TEXT]`.
    struct Hold: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "hold", abstract: "Place a legal hold on recordings, or list the holds (admins).",
            discussion: """
                A held recording is kept whatever [retention] says: neither the nightly retention run nor the purge of missing recordings removes it, and steno recordings delete refuses it, until steno recordings unhold. Without ids, lists every hold.

                Examples:
                  steno recordings hold 42 43 --reason "case 2026-118"
                  steno recordings hold          # every hold
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The recording ids; none lists the holds.") var ids: [Int64] = []
        @Option(name: .long, help: "Why, shown with the hold.") var reason: String?

        func run() throws {
            try reportingFailures {
                try global.withClient { client in
                    guard !ids.isEmpty else {
                        let holds = try client.call(StenoMethods.recordingsHolds).holds
                        var table = TableWriter(["RECORDING", "HELD", "BY", "REASON"])
                        for hold in holds { table.add([String(hold.recordingID), Output.date(hold.heldAt), hold.heldBy, hold.reason ?? "-"]) }
                        if holds.isEmpty, global.format.isHuman { return Output.say("no recording is held") }
                        return Output.print(Output.json(holds), table: table, format: global.format)
                    }
                    let result = try client.call(StenoMethods.recordingsHold, RecordingHoldParams(ids: ids, reason: reason))
                    if global.format.isHuman {
                        if !result.held.isEmpty { Output.say("held \(result.held.count) recording(s): " + result.held.map(String.init).joined(separator: " ")) }
                    } else {
                        Output.print(Output.json(result), table: TableWriter([]), format: global.format)
                    }
                    if !result.unknown.isEmpty {
                        throw CLIFailure(message: "no recording " + result.unknown.map(String.init).joined(separator: ", "), exitCode: 4)
                    }
                }
            }
        }
    }

    /// `steno recordings unhold ID…`.
    struct Unhold: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "unhold", abstract: "Lift legal holds (admins).",
            discussion: """
                The recordings fall under [retention] again: the next nightly run removes those older than their rule.

                Examples:
                  steno recordings unhold 42
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The recording ids.") var ids: [Int64]

        func run() throws {
            try reportingFailures {
                let result = try global.withClient { client in try client.call(StenoMethods.recordingsUnhold, RecordingIDsParams(ids: ids)) }
                guard global.format.isHuman else { return Output.print(Output.json(result), table: TableWriter([]), format: global.format) }
                let notHeld = Set(ids).subtracting(result.released).sorted()
                Output.say(
                    "lifted \(result.released.count) hold(s)" + (notHeld.isEmpty ? "" : "; not held: " + notHeld.map(String.init).joined(separator: " ")))
            }
        }
    }
}
