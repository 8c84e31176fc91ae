import ArgumentParser
import Foundation
import StenoAPI
import StenoCore

/// `steno audit`: the access log.
struct AuditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit", abstract: "Who opened, exported, deleted or held which recording, and when.",
        discussion: """
            Every recordings.open (play, export), delete, purge, retention removal, hold, unhold, forgotten content and forgotten person (by their redacted address) is logged with who did it, when and from which uid, and the recording's owner then; never its title or words. Admins read the whole log; members what was done to their own recordings. Entries are kept [retention] audit_days (default 365). Newest first.

            Examples:
              steno audit --recording 42
              steno audit --user bob --since "last week"
              steno audit --all -o csv > access.csv
            """)
    @OptionGroup var global: GlobalOptions
    @Option(name: .long, help: "About this recording.") var recording: Int64?
    @Option(name: .long, help: "Done by this user (or retention).") var user: String?
    @Option(name: .long, parsing: .unconditional, help: "On or after this date or time. \(DateArgument.help)") var since: DateArgument?
    @Option(name: .long, help: "Entries to show.") var limit = 50
    @Flag(name: .long, help: "Every entry, page after page.") var all = false

    func run() throws {
        try reportingFailures {
            let from = try since?.resolved(in: global.timeZone).start
            let entries = try global.withClient { client in
                var entries: [AccessEntry] = []
                var cursor: String?
                repeat {
                    let page = try client.call(
                        StenoMethods.auditList,
                        AuditListParams(recording: recording, user: user, since: from, cursor: cursor, limit: all ? 1_000 : min(limit, 1_000)))
                    entries += page.items
                    cursor = page.nextCursor
                } while all && cursor != nil
                return entries
            }
            var table = TableWriter(["WHEN", "ACTION", "RECORDING", "OWNER", "BY", "UID", "DETAIL"])
            for entry in entries {
                table.add([
                    Output.date(entry.at), entry.action.rawValue, entry.recordingID.map(String.init) ?? "-", entry.owner ?? "-", entry.actor,
                    entry.uid.map(String.init) ?? "-", entry.detail ?? "-",
                ])
            }
            if entries.isEmpty, global.format.isHuman { return Output.say("no access logged" + (since == nil ? "" : " since \(since?.text ?? "")")) }
            Output.print(Output.json(entries), table: table, format: global.format)
        }
    }
}
