import ArgumentParser
import Foundation
import StenoAPI
import StenoCore

/// `steno meetings …`: meetings with their recordings.
struct MeetingsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "meetings",
        abstract: "List meetings you organised or attended (admins: all), show one in full, create or rename one in its calendar.",
        discussion: """
            Examples:
              # the meetings of a day
              steno meetings --on 2026-11-20
              # with bob, recorded
              steno meetings --with bob@corp.example --recorded
              # one meeting in full
              steno meetings show 16
            """,
        subcommands: [List.self, Show.self, Create.self, Rename.self], defaultSubcommand: List.self)

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List meetings by start time, with their recordings.",
            discussion: """
                Examples:
                  # a range of days
                  steno meetings --from 2026-11-16 --to 2026-11-20
                  # standups nobody recorded
                  steno meetings --title standup --unrecorded
                  # every row, as CSV
                  steno meetings list --all -o csv
                """)
        @OptionGroup var global: GlobalOptions
        @OptionGroup var list: ListOptions
        @Option(name: .long, help: "Starting on or after (ISO 8601, today, yesterday, monday…).") var from: DateArgument?
        @Option(name: .long, help: "Starting before.") var to: DateArgument?
        @Option(name: .long, help: "On this day.") var on: DateArgument?
        @Option(name: .long, help: "With this attendee or organizer (email).") var with: String?
        @Option(name: .long, help: "Whose title contains this.") var title: String?
        @Flag(name: .long, help: "Only meetings with a recording.") var recorded = false
        @Flag(name: .long, help: "Only meetings without a recording.") var unrecorded = false

        func validate() throws {
            if recorded && unrecorded { throw ValidationError("--recorded and --unrecorded exclude each other") }
            if on != nil && (from != nil || to != nil) { throw ValidationError("--on replaces --from and --to") }
            try DateArgument.validateRange(from: from, to: to)
        }

        func run() throws {
            try reportingFailures {
                var start = from?.date, end = to?.date
                if let day = on?.date {
                    start = Calendar.current.startOfDay(for: day)
                    end = start.flatMap { Calendar.current.date(byAdding: .day, value: 1, to: $0) }
                }
                let params = MeetingListParams(
                    from: start, to: end, with: with, title: title, recorded: recorded ? true : unrecorded ? false : nil)
                let (meetings, more) = try global.withClient { client in
                    try list.collect { cursor, size in
                        var page = params
                        page.cursor = cursor
                        page.limit = size
                        return try client.call(StenoMethods.meetingsList, page)
                    }
                }
                Output.print(Output.json(meetings), table: MeetingsCommand.table(meetings), format: global.format)
                Output.moreHint(more, "meetings")
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a meeting: time, organizer, attendees with responses, recordings with link method and score.",
            discussion: """
                Examples:
                  steno meetings show 16          # attendees with responses, recordings with scores
                  steno meetings show 16 -o csv   # as FIELD,VALUE rows
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The meeting id.") var id: Int64

        func run() throws {
            try reportingFailures {
                let detail = try global.withClient { try $0.call(StenoMethods.meetingsGet, MeetingIDParams(id: id)) }
                guard global.format.isHuman else {
                    Output.print(Output.json(detail), table: TableWriter([]), format: global.format)
                    return
                }
                let meeting = detail.meeting
                Output.say("meeting \(meeting.id): \(meeting.title)\(meeting.isCancelled ? " (cancelled)" : "")\(meeting.isGone ? " (no longer in any calendar)" : "")")
                Output.say("when      \(meeting.start.map(Output.date) ?? "?") – \(meeting.end.map(Output.date) ?? "?")")
                if let organizer = meeting.organizer { Output.say("organizer \(organizer.name.map { "\($0) <\(organizer.email)>" } ?? organizer.email)") }
                if let location = meeting.location { Output.say("location  \(location)") }
                if let url = meeting.onlineMeetingURL { Output.say("online    \(url)") }
                Output.say("\nattendees")
                Output.sayTable(AttendeesCommand.table(detail.attendees), format: global.format)
                Output.say("\nrecordings")
                var recordings = TableWriter(["ID", "RECORDED", "LENGTH", "OWNER", "LINK", "METHOD", "SCORE"])
                for recording in detail.recordings {
                    recordings.add([
                        String(recording.id), recording.recordedAt.map(Output.date) ?? "-",
                        recording.duration.map { Output.duration(seconds: $0) } ?? "-", recording.owner ?? "-", recording.state.rawValue,
                        recording.method?.rawValue ?? "-", recording.score.map { String(format: "%.2f", $0) } ?? "-",
                    ])
                }
                if detail.recordings.isEmpty { Output.say("(none)") } else { Output.sayTable(recordings, format: global.format) }
            }
        }
    }

    static func table(_ meetings: [MeetingSummary]) -> TableWriter {
        var table = TableWriter(["ID", "START", "END", "TITLE", "ORGANIZER", "ATTENDEES", "RECORDINGS"])
        for meeting in meetings {
            table.add([
                String(meeting.id), meeting.start.map(Output.date) ?? "-", meeting.end.map(Output.date) ?? "-",
                meeting.title + (meeting.isCancelled ? " (cancelled)" : "") + (meeting.isGone ? " (gone)" : ""),
                meeting.organizer?.email ?? "-", String(meeting.attendeeCount),
                meeting.recordings.isEmpty ? "-" : meeting.recordings.map(String.init).joined(separator: ","),
            ])
        }
        return table
    }
}

/// `steno attendees MEETING`.
struct AttendeesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attendees", abstract: "A meeting's attendees with their role and response (cached ones when the meeting is gone).",
        discussion: """
            Examples:
              steno attendees 16          # role and response of each
              steno attendees 16 -o csv   # for a spreadsheet
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var list: ListOptions
    @Argument(help: "The meeting id.") var meeting: Int64

    func run() throws {
        try reportingFailures {
            let (attendees, more) = try global.withClient { client in
                try list.collect { try client.call(StenoMethods.attendeesList, AttendeeListParams(id: meeting, cursor: $0, limit: $1)) }
            }
            Output.print(Output.json(attendees), table: Self.table(attendees), format: global.format)
            Output.moreHint(more, "attendees")
        }
    }

    static func table(_ attendees: [Attendee]) -> TableWriter {
        var table = TableWriter(["EMAIL", "NAME", "ROLE", "RESPONSE"])
        for attendee in attendees {
            table.add([attendee.email, attendee.name ?? "-", attendee.role.rawValue, attendee.response.rawValue])
        }
        return table
    }
}

/// `steno search TEXT`.
struct SearchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search", abstract: "Search meeting titles, attendee names and emails, recording titles and transcripts.",
        discussion: """
            Examples:
              steno search acme renewal      # meetings and recordings with both words
              steno search zoe@example.com   # an attendee
              steno search stand             # a prefix: standup, standing…
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var list: ListOptions
    @Argument(help: "Words; each matches as a prefix, all must match.") var words: [String]

    func run() throws {
        try reportingFailures {
            let (hits, more) = try global.withClient { client in
                try list.collect {
                    try client.call(StenoMethods.searchQuery, SearchParams(text: words.joined(separator: " "), cursor: $0, limit: $1))
                }
            }
            var table = TableWriter(["KIND", "ID", "WHEN", "TITLE", "MATCH"])
            for hit in hits {
                table.add([hit.kind, String(hit.id), hit.start.map(Output.date) ?? "-", hit.title, hit.snippet.replacingOccurrences(of: "\n", with: " ")])
            }
            Output.print(Output.json(hits), table: table, format: global.format)
            Output.moreHint(more, "hits")
            if let bound = hits.compactMap(\.rankedAmongNewest).first {
                FileHandle.standardError.write(
                    Data("steno: these words match more than \(bound) meetings or recordings; hits are ranked among the \(bound) newest of each, add a word to narrow them\n".utf8))
            }
        }
    }
}
