import ArgumentParser
import Foundation
import StenoAPI
import StenoCore

/// `steno retention`: what `[retention]` keeps, and what its next run removes.
struct RetentionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retention", abstract: "What the nightly retention run removes.",
        discussion: """
            Examples:
              steno retention            # the same as steno retention preview
              steno retention preview -o json
            """,
        subcommands: [Preview.self], defaultSubcommand: Preview.self)

    /// `steno retention preview`.
    struct Preview: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "preview", abstract: "List exactly what the next retention run removes.",
            discussion: """
                [retention] keep_days in stenod.toml, with [retention.owners] and [retention.folders] overrides (0 keeps forever), sets how long recordings are kept, counted from when each was made (else catalogued). Every night at expire_cron the run deletes the recordings older than their rule with their files (or moves the files to archive_dir). This lists what that run removes, as of the instant it starts: admins see every recording, members their own. A recording under a legal hold (steno recordings hold) is never removed.

                Examples:
                  steno retention preview
                  steno retention preview -o csv > expiring.csv
                """)
        @OptionGroup var global: GlobalOptions

        func run() throws {
            try reportingFailures {
                let preview = try global.withClient { client in try client.call(StenoMethods.retentionPreview) }
                var table = TableWriter(["ID", "AGED FROM", "OWNER", "RULE", "TITLE"])
                for item in preview.recordings {
                    table.add([String(item.id), Output.date(item.agedFrom), item.owner ?? "-", item.rule, item.title ?? "-"])
                }
                guard global.format.isHuman else { return Output.print(Output.json(preview), table: table, format: global.format) }
                guard let runsAt = preview.runsAt else {
                    return Output.say("no retention run is scheduled: every rule keeps recordings forever (set [retention] keep_days in stenod.toml)")
                }
                let action = preview.archiveDirectory.map { "their files moved to \($0)" } ?? "their files removed from the inbox"
                Output.say("next run \(Output.date(runsAt)): \(preview.recordings.count) recording(s) go, \(action)")
                Output.say("rules: " + preview.rules.joined(separator: "; "))
                if preview.held > 0 { Output.say("\(preview.held) recording(s) under a legal hold are kept") }
                if !preview.recordings.isEmpty { Output.print(Output.json(preview), table: table, format: global.format) }
            }
        }
    }
}
