import ArgumentParser
import Foundation
import StenoAPI
import StenoCore

/// `steno calendars [--account ID]`: the mirrored calendars.
struct CalendarsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calendars", abstract: "List the mirrored calendars of your accounts (admins: all) with event counts.",
        discussion: """
            Examples:
              steno calendars               # every mirrored calendar, with its event count
              steno calendars --account 2   # account 2's
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var list: ListOptions
    @Option(name: .long, help: "Only this account's calendars.") var account: Int64?

    func run() throws {
        try reportingFailures {
            let (calendars, more) = try global.withClient { client in
                try list.collect { cursor, size in
                    try client.call(StenoMethods.calendarsList, CalendarListParams(account: account, cursor: cursor, limit: size))
                }
            }
            var table = TableWriter(["ID", "ACCOUNT", "NAME", "EVENTS", "TIME ZONE", "REMOTE ID"])
            for calendar in calendars {
                table.add([
                    String(calendar.id), String(calendar.account), calendar.name, String(calendar.events), calendar.timeZone ?? "-",
                    calendar.remoteID,
                ])
            }
            Output.print(Output.json(calendars), table: table, format: global.format)
            Output.moreHint(more, "calendars")
        }
    }
}
