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
        subcommands: [List.self, Show.self, Export.self, Create.self, Rename.self], defaultSubcommand: List.self)

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List meetings with their recordings: by default today's and the next 7 days', soonest first.",
            discussion: """
                Without --from, --to or --on, the list is an agenda: today and the next 7 days, soonest first. A filter \
                (--with, --title, --recorded, --unrecorded) without dates looks at every meeting, newest first. An \
                explicit range lists earliest first. --reverse turns any of these around.

                Dates: \(DateExpression.forms). A weekday alone is the next one, today included (as in khal and \
                gcalcli); "next friday" is the first Friday after today, "last friday" the last one before it; weeks \
                start on Monday. --to includes the whole day it names; --on takes a day, a week or a month.

                Meetings deleted from every calendar are left out unless a recording is linked to them (then marked \
                "gone") or --include-gone is given. Times are printed with their offset, in the zone of --tz; all-day \
                meetings as dates.

                Examples:
                  # today and the next 7 days
                  steno meetings
                  # the next Friday
                  steno meetings --on friday
                  # a range of days, the last one included
                  steno meetings --from 2026-11-16 --to 2026-11-20
                  steno meetings --from "last week" --to today
                  # standups nobody recorded, newest first
                  steno meetings --title standup --unrecorded
                  # with bob, or anyone at corp.example, in the last 30 days
                  steno meetings --with bob --with @corp.example --from -30d
                  steno meetings --on "next month" --recorded --sort title
                  # every row, as CSV, times in UTC
                  steno meetings list --all -o csv --tz UTC
                """)
        @OptionGroup var global: GlobalOptions
        @OptionGroup var list: ListOptions
        @Option(name: .long, parsing: .unconditional, help: "Starting on or after this date or time. \(DateArgument.help)") var from: DateArgument?
        @Option(name: .long, parsing: .unconditional, help: "Starting up to this date (the whole day included) or before this time.") var to: DateArgument?
        @Option(name: .long, parsing: .unconditional, help: "On this day (or week, or month: --on \"this week\").") var on: DateArgument?
        @Option(
            name: .long,
            help: "With this organizer or attendee: an email, a domain (@corp.example or corp.example) or part of a name; repeat for any of several.")
        var with: [String] = []
        @Option(name: .long, help: "Whose title contains this.") var title: String?
        @Flag(name: .long, help: "Only meetings with a recording.") var recorded = false
        @Flag(name: .long, help: "Only meetings without a recording.") var unrecorded = false
        @Flag(name: .long, help: "Also meetings deleted from every calendar (always listed when a recording is linked).")
        var includeGone = false
        @Option(name: .long, help: "Order by start (the default; every page in order), or by end, title, organizer or id (the rows shown).")
        var sort: MeetingSort = .start
        @Flag(name: .long, help: "The other way round.") var reverse = false

        func validate() throws {
            if recorded && unrecorded { throw ValidationError("--recorded and --unrecorded exclude each other") }
            if with.count > AttendeeMatch.maximumCount { throw ValidationError("at most \(AttendeeMatch.maximumCount) --with") }
            if let empty = with.first(where: { AttendeeMatch($0) == nil }) {
                throw ValidationError("--with \"\(empty)\" has no letter or digit to look for")
            }
            _ = try DateArgument.range(from: from, to: to, on: on, in: global.timeZone)
        }

        /// The range and order asked for: an agenda by default, every meeting for a filter.
        func plan(now: Date = Date()) throws -> (from: Date?, to: Date?, newestFirst: Bool) {
            let (start, end) = try DateArgument.range(from: from, to: to, on: on, in: global.timeZone)
            if start != nil || end != nil { return (start, end, reverse) }
            if !with.isEmpty || title != nil || recorded || unrecorded { return (nil, nil, !reverse) }
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = global.timeZone
            let today = calendar.startOfDay(for: now)
            return (today, calendar.date(byAdding: .day, value: MeetingsCommand.agendaDays, to: today), reverse)
        }

        func run() throws {
            try reportingFailures {
                let (start, end, newestFirst) = try plan()
                let params = MeetingListParams(
                    from: start, to: end, title: title, recorded: recorded ? true : unrecorded ? false : nil,
                    hideGone: !includeGone, newestFirst: newestFirst, withAny: with.isEmpty ? nil : with)
                try global.withClient { client in
                    let requestPage = { (cursor: String?, size: Int) throws -> PendingCall<Page<MeetingSummary>> in
                        var page = params
                        page.cursor = cursor
                        page.limit = size
                        return try client.send(StenoMethods.meetingsList, page)
                    }
                    if sort == .start {
                        // The daemon's order across every page: written as the pages arrive.
                        let empty = { () -> String in
                            let filtered = from != nil || to != nil || on != nil || !with.isEmpty || title != nil || recorded || unrecorded
                            guard (try? client.call(StenoMethods.accountsList, AccountListParams(limit: 1)))?.items.isEmpty == true else {
                                return filtered ? "no meetings match" : "no meetings in the mirrored calendars yet"
                            }
                            return "no meetings yet: mirror a calendar with steno accounts add ics FILE-OR-URL (or caldav, graph)"
                        }
                        try list.write("meetings", format: global.format, table: MeetingsCommand.table, empty: empty, requestPage: requestPage)
                    } else {
                        // Another order needs every row first.
                        let (meetings, more) = try list.collect(requestPage)
                        let sorted = sort.sorted(meetings, reverse: reverse)
                        Output.print(Output.json(sorted), table: MeetingsCommand.table(sorted), format: global.format)
                        Output.moreHint(more, "meetings")
                    }
                }
                // A typo in an address matches nothing, silently: say which --with found nobody.
                // (Without --with no second connection: the daemon may be gone by now.)
                guard !with.isEmpty else { return }
                try global.withClient { client in
                    for text in with {
                        let probe = try client.call(StenoMethods.meetingsList, MeetingListParams(limit: 1, withAny: [text]))
                        guard probe.items.isEmpty else { continue }
                        FileHandle.standardError.write(
                            Data("steno: --with \(TerminalText.clean(text)) matches no organizer or attendee of any meeting you may see\n".utf8))
                    }
                }
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
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
                Output.say("when      \(MeetingsCommand.when(meeting))")
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

    /// Days of the default listing after today.
    static let agendaDays = 8

    /// A meeting's start and end as printed: times with their offset, or the first and last
    /// day of an all-day meeting (never `00:00 → 00:00`).
    static func times(_ meeting: MeetingSummary) -> (start: String, end: String) {
        guard meeting.isAllDay else {
            let start = meeting.start.map { Output.date($0) }
            return (start ?? "-", meeting.end.map { Output.date($0, afterWritten: start) } ?? "-")
        }
        let first = meeting.firstDay ?? meeting.start.map(Output.day) ?? "-"
        return (first, meeting.lastDay ?? first)
    }

    /// When a meeting is, in one phrase: `2026-11-20 (all day)`, `2026-11-20 → 2026-11-22`, or
    /// its start and end times.
    static func when(_ meeting: MeetingSummary) -> String {
        let (start, end) = times(meeting)
        if meeting.isAllDay { return start == end ? "\(start) (all day)" : "\(start) → \(end)" }
        return "\(meeting.start == nil ? "?" : start) – \(meeting.end == nil ? "?" : end)"
    }

    static func table(_ meetings: [MeetingSummary]) -> TableWriter {
        var table = TableWriter(["ID", "START", "END", "TITLE", "ORGANIZER", "ATTENDEES", "RECORDINGS"])
        for meeting in meetings {
            let (start, end) = times(meeting)
            table.add([
                String(meeting.id), start, end,
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
            try global.withClient { client in
                try list.write("attendees", format: global.format, table: Self.table) {
                    try client.send(StenoMethods.attendeesList, AttendeeListParams(id: meeting, cursor: $0, limit: $1))
                }
            }
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
            var rankedAmongNewest: Int?
            try global.withClient { client in
                try list.write("hits", format: global.format, table: Self.table, observe: { hits in
                    rankedAmongNewest = rankedAmongNewest ?? hits.compactMap(\.rankedAmongNewest).first
                }) {
                    try client.send(StenoMethods.searchQuery, SearchParams(text: words.joined(separator: " "), cursor: $0, limit: $1))
                }
            }
            if let bound = rankedAmongNewest {
                FileHandle.standardError.write(
                    Data("steno: these words match more than \(bound) meetings or recordings; hits are ranked among the \(bound) newest of each, add a word to narrow them\n".utf8))
            }
        }
    }

    static func table(_ hits: [SearchHit]) -> TableWriter {
        var table = TableWriter(["KIND", "ID", "WHEN", "TITLE", "MATCH"])
        for hit in hits {
            table.add([hit.kind, String(hit.id), hit.start.map(Output.date) ?? "-", hit.title, hit.snippet.replacingOccurrences(of: "\n", with: " ")])
        }
        return table
    }
}
