import ArgumentParser
import Foundation
import StenoAPI
import StenoCore

extension MeetingsCommand {
    /// `steno meetings create --for-recording ID`: an event for a recording that has none.
    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create",
            abstract: "Create a meeting covering a recording in its owner's calendar (Microsoft 365, CalDAV or a paired phone) and link it.",
            discussion: """
                The event spans the recording (start time and length) in the owner's only writable calendar, or the one
                named with --calendar (see steno calendars). Microsoft 365 accounts need write access: steno accounts signin ID --write.
                In a phone's calendar the event waits in the phone's change feed until the Steno agent creates it there.

                Examples:
                  # an event covering recording 9, linked to it
                  steno meetings create --for-recording 9 --title "Customer call"
                """)
        @OptionGroup var global: GlobalOptions
        @Option(name: .customLong("for-recording"), help: "The recording the meeting is for.") var recording: Int64
        @Option(name: .long, help: "The title (default: the recording's title, else its file name).") var title: String?
        @Option(name: .long, help: "The calendar to create it in (an id from steno calendars).") var calendar: Int64?

        func run() throws {
            try reportingFailures {
                let result = try global.withClient {
                    try $0.call(StenoMethods.meetingsCreate, MeetingCreateParams(recording: recording, title: title, calendar: calendar))
                }
                MeetingsCommand.report(result, verb: "created", format: global.format)
            }
        }
    }

    /// `steno meetings rename MEETING TITLE`: a new title at the calendar's provider.
    struct Rename: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rename",
            abstract: "Rename a meeting in the calendar that holds it (for a recurring meeting: the series).",
            discussion: """
                Examples:
                  # at the calendar's provider
                  steno meetings rename 16 "Acme renewal kickoff"
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The meeting id.") var meeting: Int64
        @Argument(help: "The new title.") var title: String

        func run() throws {
            try reportingFailures {
                let result = try global.withClient { try $0.call(StenoMethods.meetingsRename, MeetingRenameParams(id: meeting, title: title)) }
                MeetingsCommand.report(result, verb: "renamed", format: global.format)
            }
        }
    }

    /// What a write did, as a sentence or as JSON.
    static func report(_ result: MeetingWriteResult, verb: String, format: OutputFormat) {
        guard format.isHuman else {
            Output.print(Output.json(result), table: TableWriter([]), format: format)
            return
        }
        let provider =
            switch result.provider {
            case .graph: "Microsoft 365"
            case .device: "phone"
            default: result.provider.rawValue
            }
        var line = "\(verb)"
        if let meeting = result.meeting {
            line += " meeting \(meeting.id) \"\(meeting.title)\" (\(MeetingsCommand.when(meeting)))"
        } else {
            line += " the meeting"
        }
        line += " in \(result.calendar) (\(provider), account \(result.account))"
        if let recording = result.recording, result.meeting != nil { line += "; recording \(recording) is linked to it" }
        Output.say(line)
        if let job = result.syncJob { Output.say("the calendar syncs now (job \(job)) and brings the rest: steno sync --wait") }
        if result.provider == .device { Output.say("the phone creates the event at its next sync") }
    }
}
