import ArgumentParser
import Foundation
import StenoAPI

/// `steno admin …`: operations on the daemon's data.
struct AdminCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin", abstract: "Administer the daemon's data.",
        discussion: """
            Examples:
              # a consistent copy while serving
              steno admin backup /var/lib/steno/backups/today.sqlite
            """, subcommands: [Backup.self])

    struct Backup: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "backup",
            abstract: "Write a consistent copy of the catalog while the daemon keeps serving.",
            discussion: """
                The daemon writes FILE itself, so it must be a path the daemon's user can create.

                A backup keeps what was deleted after it was taken (recordings, people's names) until the backup itself goes. --prune-older-than removes, once the new copy is written, the catalog copies in the same folder last written longer ago: SQLite databases only, never a symbolic link, never the live catalog.

                Examples:
                  # the unit of deploy/ lets stenod write there
                  steno admin backup /var/lib/steno/backups/today.sqlite
                  # nightly, keeping a month of copies
                  steno admin backup /var/lib/steno/backups/catalog-$(date +%F).sqlite --prune-older-than 30d
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The backup file to create (must not exist).") var file: String
        @Option(name: .customLong("prune-older-than"), help: "Then remove the copies beside it older than this: 30d, 2w, or a number of days.")
        var pruneOlderThan: String?

        func validate() throws {
            if let pruneOlderThan, (DayCount.parse(pruneOlderThan) ?? 0) < 1 {
                throw ValidationError("--prune-older-than takes days: 30d, 2w or 30 (at least one day), not \(pruneOlderThan)")
            }
        }

        func run() throws {
            try reportingFailures {
                let path = URL(fileURLWithPath: file).standardizedFileURL.path
                let params = BackupParams(path: path, pruneOlderThanDays: pruneOlderThan.flatMap(DayCount.parse))
                let result = try global.withClient { try $0.call(StenoMethods.adminBackup, params) }
                var table = TableWriter(["FILE", "BYTES", "SECONDS"])
                table.add([result.path, String(result.bytes), String(format: "%.2f", result.durationSeconds)])
                Output.print(Output.json(result), table: table, format: global.format)
                if let pruned = result.pruned, global.format.isHuman {
                    Output.say("removed \(pruned.count) older backup(s)" + (pruned.isEmpty ? "" : ": " + pruned.joined(separator: " ")))
                }
            }
        }
    }
}
