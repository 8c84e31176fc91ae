import ArgumentParser
import Foundation
import StenoAPI
import StenoCore

/// `steno calendars [list] [--account ID]`, `steno calendars disable ID`, `steno calendars
/// enable ID`: the mirrored calendars, and which of them count.
struct CalendarsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calendars", abstract: "List the mirrored calendars of your accounts (admins: all); enable or disable them.",
        discussion: """
            A disabled calendar does not count: it is not mirrored, its events are no candidates \
            for recordings, and links to them are orphaned (their cached copies kept).

            Examples:
              steno calendars               # every mirrored calendar, its event count and state
              steno calendars --account 2   # account 2's
              steno calendars disable 7     # calendar 7 stops counting
              steno calendars enable 7      # and counts again
            """,
        subcommands: [List.self, Disable.self, Enable.self], defaultSubcommand: List.self)

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the mirrored calendars of your accounts (admins: all) with event counts and whether they count.",
            discussion: """
                Examples:
                  steno calendars list
                  steno calendars --account 2 --json
                """)
        @OptionGroup var global: GlobalOptions
        @OptionGroup var list: ListOptions
        @Option(name: .long, help: "Only this account's calendars.") var account: Int64?

        func run() throws {
            try reportingFailures {
                let (calendars, more) = try global.withClient { client in
                    try list.collect { cursor, size in
                        try client.send(StenoMethods.calendarsList, CalendarListParams(account: account, cursor: cursor, limit: size))
                    }
                }
                var table = TableWriter(["ID", "ACCOUNT", "NAME", "EVENTS", "STATE", "TIME ZONE", "REMOTE ID"])
                for calendar in calendars {
                    table.add([
                        String(calendar.id), String(calendar.account), calendar.name, String(calendar.events),
                        calendar.enabled ? "enabled" : "disabled", calendar.timeZone ?? "-", calendar.remoteID,
                    ])
                }
                Output.print(Output.json(calendars), table: table, format: global.format) {
                    "no calendars yet: an account's calendars appear after its first sync (steno accounts; steno sync --wait)"
                }
                Output.moreHint(more, "calendars")
            }
        }
    }

    struct Disable: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "disable",
            abstract: "Stop a calendar from counting: it is no longer mirrored and links to its events become orphaned.",
            discussion: """
                Its events stop being candidates for recordings; links to them keep their cached \
                copies. steno calendars enable ID brings it back.

                Examples:
                  steno calendars disable 7
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The calendar's id (steno calendars).") var id: Int64

        func run() throws {
            try reportingFailures {
                let result = try global.withClient { try $0.call(StenoMethods.calendarsDisable, CalendarIDParams(id: id)) }
                CalendarsCommand.report(result, state: "disabled", format: global.format) { "links to its events are revalidated by job \($0)" }
            }
        }
    }

    struct Enable: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "enable",
            abstract: "Make a disabled calendar count again: its account is synced and the calendar mirrored from the start.",
            discussion: """
                Examples:
                  steno calendars enable 7
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The calendar's id (steno calendars).") var id: Int64

        func run() throws {
            try reportingFailures {
                let result = try global.withClient { try $0.call(StenoMethods.calendarsEnable, CalendarIDParams(id: id)) }
                CalendarsCommand.report(result, state: "enabled", format: global.format) { "its account is synced by job \($0)" }
            }
        }
    }

    /// Says what a switch did: the calendar's new state and the job it queued, or that it was
    /// in that state already.
    static func report(_ result: CalendarSwitchResult, state: String, format: OutputFormat, job describe: (Int64) -> String) {
        let calendar = result.calendar
        let sentence = result.job.map { "\(state) calendar \(calendar.id) (\(calendar.name)); \(describe($0))" }
            ?? "calendar \(calendar.id) (\(calendar.name)) was \(state) already"
        Output.done(result, sentence, format: format)
    }
}
