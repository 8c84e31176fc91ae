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

                Examples:
                  # the unit of deploy/ lets stenod write there
                  steno admin backup /var/lib/steno/backups/today.sqlite
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The backup file to create (must not exist).") var file: String

        func run() throws {
            try reportingFailures {
                let path = URL(fileURLWithPath: file).standardizedFileURL.path
                let result = try global.withClient { try $0.call(StenoMethods.adminBackup, BackupParams(path: path)) }
                var table = TableWriter(["FILE", "BYTES", "SECONDS"])
                table.add([result.path, String(result.bytes), String(format: "%.2f", result.durationSeconds)])
                Output.print(Output.json(result), table: table, format: global.format)
            }
        }
    }
}
