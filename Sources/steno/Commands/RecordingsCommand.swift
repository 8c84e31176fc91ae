import ArgumentParser
import Foundation
import StenoAPI
import StenoCore

/// `steno recordings …`: what the catalog holds.
struct RecordingsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recordings", abstract: "List and inspect recordings.",
        discussion: """
            Examples:
              steno recordings             # the recordings you may see, newest first
              steno recordings --failed    # files that could not be read, and why
              steno recordings show 7      # one in full: its meeting, paths, format
              steno recordings explain 7   # why it is linked as it is
            """,
        subcommands: [List.self, Show.self, Open.self, Play.self, Export.self, ExplainCommand.self, Delete.self, ForgetContent.self, Purge.self, Hold.self, Unhold.self], defaultSubcommand: List.self)

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List recordings you may see (admins: all).",
            discussion: """
                By default the newest recording first, by when it started (a file that could not be read, by when it was catalogued). --sort ingested and --sort length also put the largest first, --sort id counts up; --reverse turns any of them around. The order holds across every page.

                Examples:
                  steno recordings --owner alice --from monday   # alice's, since Monday
                  steno recordings --warnings                    # files cut short, sidecars that disagree
                  steno recordings list --all -o csv             # every row, as CSV
                  steno recordings --sort length                 # the longest first
                  steno recordings --sort ingested --reverse     # in the order they were catalogued
                """)
        @OptionGroup var global: GlobalOptions
        @OptionGroup var list: ListOptions
        @Option(name: .long, help: "Only this owner's (name, email or id).") var owner: String?
        @Option(name: .long, help: "pending, ready, failed or missing.") var status: RecordingStatus?
        @Flag(name: .long, help: "Only failed recordings, with the reason.") var failed = false
        @Flag(name: .long, help: "Only recordings with warnings (a file cut short, a sidecar that disagrees).") var warnings = false
        @Option(name: .long, parsing: .unconditional, help: "Recorded on or after this date or time. \(DateArgument.help)") var from: DateArgument?
        @Option(name: .long, parsing: .unconditional, help: "Recorded up to this date (the whole day included) or before this time.") var to: DateArgument?
        @Option(name: .long, help: "recorded (newest first), ingested (latest first), length (longest first) or id.") var sort: RecordingSort = .recorded
        @Flag(name: .long, help: "The other way round.") var reverse = false

        func validate() throws {
            _ = try DateArgument.range(from: from, to: to, in: global.timeZone)
            if failed, let status, status != .failed {
                throw ValidationError("--failed and --status \(status.rawValue) exclude each other, so nothing can match")
            }
        }

        func run() throws {
            try reportingFailures {
                let status = failed ? .failed : self.status
                let (start, end) = try DateArgument.range(from: from, to: to, in: global.timeZone)
                let reasons = failed || status == .failed || warnings
                let filtered = owner != nil || status != nil || warnings || from != nil || to != nil
                try global.withClient { client in
                    let empty = { () -> String in
                        if filtered { return "no recordings match" }
                        guard let status = try? client.call(StenoMethods.systemStatus) else { return "no recordings yet" }
                        return "no recordings yet: drop an audio file into \(status.inboxPath)/\(status.caller.user ?? "NAME")/ and it is catalogued"
                    }
                    try list.write(
                        "recordings", format: global.format, table: { RecordingsCommand.table($0, reasons: reasons) }, empty: empty
                    ) { cursor, size in
                        try client.send(
                            StenoMethods.recordingsList,
                            RecordingListParams(
                                owner: owner, status: status, warnings: warnings ? true : nil, from: start, to: end,
                                sort: sort, descending: sort.isDescendingByDefault != reverse, cursor: cursor, limit: size))
                    }
                }
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Show one recording in full.",
            discussion: """
                Examples:
                  steno recordings show 7          # its meeting, absolute paths, format, start time
                  steno recordings show 7 --json   # the same as JSON
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The recording id.") var id: Int64

        func run() throws {
            try reportingFailures {
                let (recording, link, inbox) = try global.withClient { client in
                    let recording = try client.call(StenoMethods.recordingsGet, RecordingReferenceParams(id: id))
                    // Extras: a member may see a recording through its meeting without being
                    // allowed its link's explanation; the show goes on without them.
                    let link = try? client.call(StenoMethods.recordingsExplain, RecordingReferenceParams(id: id)).stored
                    return (recording, link, (try? client.call(StenoMethods.systemStatus).inboxPath) ?? "")
                }
                var table = TableWriter(["FIELD", "VALUE"])
                table.add(["id", String(recording.id)])
                table.add(["status", recording.status.rawValue + (recording.failureReason.map { ": " + $0 } ?? "")])
                for warning in recording.warnings { table.add(["warning", warning]) }
                table.add(["owner", recording.ownerName ?? "-"])
                table.add(["recorded", recording.recordedAt.map { Output.date($0) + " (from \(recording.recordedAtSource?.rawValue ?? "?"))" } ?? "-"])
                table.add(["duration", recording.duration.map { Output.duration(seconds: $0) } ?? "-"])
                table.add(["format", [recording.format, recording.codec].compactMap { $0 }.joined(separator: " / ")])
                table.add(["audio", [recording.sampleRate.map { "\($0) Hz" }, recording.channels.map { "\($0) ch" }].compactMap { $0 }.joined(separator: ", ")])
                table.add(["size", "\(recording.size) bytes"])
                // Only the owner (or an admin) gets the link's explanation; everyone who may
                // see the recording gets the meeting it is bound to.
                table.add(["meeting", link.map { RecordingsCommand.meeting($0) } ?? RecordingsCommand.meeting(recording.meeting)])
                for path in recording.paths {
                    table.add(["path", RecordingsCommand.absolute(path.path, inbox: inbox) + (path.isPresent ? "" : " (gone)")])
                }
                if let title = recording.title { table.add(["title", title]) }
                if let uid = recording.iCalUIDHint { table.add(["iCalUId hint", uid]) }
                if let event = recording.eventIDHint { table.add(["event id hint", event]) }
                table.add(["sha-256", recording.contentHash ?? "-"])
                if let transcript = recording.transcript { table.add(["transcript", String(transcript.prefix(200))]) }
                var json = Output.json(recording)
                if case .object(var fields) = json {
                    fields["link"] = Output.json(link)
                    fields["absolutePaths"] = .array(recording.paths.map { .string(RecordingsCommand.absolute($0.path, inbox: inbox)) })
                    json = .object(fields)
                }
                Output.print(json, table: table, format: global.format)
            }
        }
    }

    struct Open: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "open",
            abstract: "Print a recording's file path, or play it.",
            discussion: """
                For the recording's owner and admins, prints the absolute path of its file (the first one still present), or with STENO_PLAYER set runs that program with the path. Anyone else who may see the recording (the inbox folder is its owner's) plays it through the file the daemon opens, as steno recordings play does.

                Examples:
                  steno recordings open 42
                  STENO_PLAYER=mpv steno recordings open 42
                  cp "$(steno recordings open 42)" ~/Desktop/
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The recording id.") var id: Int64

        func run() throws {
            try reportingFailures {
                let opened = try OpenedRecording(id, socket: global.socket)
                let player = ProcessInfo.processInfo.environment["STENO_PLAYER"] ?? ""
                if let path = opened.result.path, player.isEmpty {
                    // A file name comes from outside: raw for a pipe (a script needs the real path), made safe on a terminal.
                    Output.line(isatty(STDOUT_FILENO) == 1 ? TerminalText.clean(path) : path)
                    return
                }
                // The owner and admins give the player the path, as before; others the descriptor.
                let status = try opened.play(path: opened.result.path)
                if status != 0 { throw ExitCode(status) }
            }
        }
    }

    /// A recording's path as the daemon sees it: inbox paths are stored relative to the inbox.
    static func absolute(_ path: String, inbox: String) -> String {
        path.hasPrefix("/") || inbox.isEmpty ? path : (inbox.hasSuffix("/") ? inbox : inbox + "/") + path
    }

    /// The link's meeting in one line: title, start, how it was linked.
    static func meeting(_ link: LinkSummary?) -> String {
        guard let link else { return "-" }
        var words: [String] = [link.state.rawValue]
        if let method = link.method { words.append("by " + (link.isManual ? "hand" : method.rawValue)) }
        guard let meeting = link.meeting else { return words.joined(separator: " ") }
        let title = link.meetingTitle ?? "meeting \(meeting)"
        let start = link.meetingStart.map { " at " + Output.date($0) } ?? ""
        return "\(title)\(start) (meeting \(meeting); \(words.joined(separator: " ")))"
    }

    /// The meeting a recording is bound to, as a member who may not read its link sees it.
    static func meeting(_ meeting: RecordingMeeting?) -> String {
        guard let meeting else { return "-" }
        let start = meeting.start.map { " at " + Output.date($0) } ?? ""
        return "\(meeting.title ?? "meeting \(meeting.id)")\(start) (meeting \(meeting.id); \(meeting.state.rawValue))"
    }

    static func table(_ recordings: [Recording], reasons: Bool) -> TableWriter {
        var table = TableWriter(["ID", "RECORDED", "OWNER", "LENGTH", "FORMAT", "STATUS", reasons ? "REASON" : "PATH"])
        for recording in recordings {
            table.add([
                String(recording.id), recording.recordedAt.map(Output.date) ?? "-", recording.ownerName ?? "-",
                recording.duration.map { Output.duration(seconds: $0) } ?? "-", recording.format ?? "-", recording.status.rawValue,
                reasons ? (recording.failureReason ?? recording.warnings.joined(separator: "; ")) : (recording.paths.first?.path ?? "-"),
            ])
        }
        return table
    }
}

extension RecordingStatus: ExpressibleByArgument {}
extension RecordingSort: ExpressibleByArgument {}
