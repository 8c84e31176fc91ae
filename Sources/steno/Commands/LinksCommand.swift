import ArgumentParser
import Foundation
import StenoAPI
import StenoCore

/// `steno recordings explain ID`: every candidate meeting with the terms of its score.
struct ExplainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain", abstract: "Show every candidate meeting of a recording, the arithmetic of its score, and why the winner won.",
        discussion: """
            Examples:
              steno recordings explain 7   # every candidate and its score's arithmetic
            """)
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The recording id.") var id: Int64

    func run() throws {
        try reportingFailures {
            let explanation = try global.withClient { try $0.call(StenoMethods.recordingsExplain, RecordingReferenceParams(id: id)) }
            guard global.format.isHuman else {
                Output.print(Output.json(explanation), table: TableWriter([]), format: global.format)
                return
            }
            Output.say("recording \(explanation.recording): \(explanation.state.rawValue)\(explanation.method.map { " by \($0.rawValue)" } ?? "")"
                + "\(explanation.meeting.map { " to meeting \($0)" } ?? "")")
            Output.say("why: \(explanation.reason)")
            if let stored = explanation.stored, stored.isManual || stored.state != explanation.state || stored.meeting != explanation.meeting {
                Output.say("stored link: \(stored.state.rawValue)\(stored.isManual ? " (by hand)" : "")\(stored.meeting.map { " to meeting \($0)" } ?? "")")
            }
            if explanation.candidates.isEmpty {
                Output.say("no candidates")
                return
            }
            for candidate in explanation.candidates {
                let marker = candidate.meeting == explanation.meeting ? "→" : " "
                Output.say("\n\(marker) meeting \(candidate.meeting) \"\(candidate.title)\" \(Output.date(candidate.start))–\(Output.date(candidate.end))"
                    + "  score \(String(format: "%.2f", candidate.score))")
                if let excluded = candidate.excludedBecause { Output.say("    not linkable by time: \(excluded)") }
                for term in candidate.terms {
                    Output.say("    \(String(format: "%+.2f", term.points))  \(term.name.padding(toLength: 11, withPad: " ", startingAt: 0)) \(term.detail)")
                }
            }
        }
    }
}

/// `steno links …`: what each recording is linked to; history.
struct LinksCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "links", abstract: "List links (orphaned, ambiguous, pending…), their history, and hand links back to the linker.",
        discussion: """
            Examples:
              steno links               # each recording's meeting: state, method, score
              steno links --ambiguous   # too close to call: pick one with steno link
              steno links history 7     # every change of recording 7's link
            """,
        subcommands: [List.self, History.self, Reset.self], defaultSubcommand: List.self)

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the links of your recordings (admins: all).",
            discussion: """
                Examples:
                  steno links --orphaned         # their meeting disappeared at the source
                  steno links --pending --json   # waiting for a calendar, as JSON
                """)
        @OptionGroup var global: GlobalOptions
        @OptionGroup var list: ListOptions
        @Flag(name: .long, help: "Only links whose meeting disappeared.") var orphaned = false
        @Flag(name: .long, help: "Only links too close to call.") var ambiguous = false
        @Flag(name: .long, help: "Only links waiting for their event to be mirrored.") var pending = false
        @Option(name: .long, help: "Only links in this state: linked, ambiguous, orphaned, pending, unlinked.") var state: LinkState?

        /// A link has one state: two different ones asked for at once can match nothing.
        func validate() throws {
            let asked = Set([orphaned ? LinkState.orphaned : nil, ambiguous ? .ambiguous : nil, pending ? .pending : nil, state].compactMap { $0 })
            if asked.count > 1 {
                let names = asked.map(\.rawValue).sorted().joined(separator: " and ")
                throw ValidationError("a link is in one state; \(names) exclude each other, so nothing can match")
            }
        }

        func run() throws {
            try reportingFailures {
                let chosen = state ?? (orphaned ? .orphaned : ambiguous ? .ambiguous : pending ? .pending : nil)
                try global.withClient { client in
                    let empty = {
                        chosen.map { "no \($0.rawValue) links" }
                            ?? "no links yet: a recording is linked once a calendar holding its meeting is mirrored (steno accounts add)"
                    }
                    try list.write("links", format: global.format, table: LinksCommand.table, empty: empty) { cursor, size in
                        try client.send(StenoMethods.linksList, LinkListParams(state: chosen, cursor: cursor, limit: size))
                    }
                }
            }
        }
    }

    static func table(_ links: [LinkSummary]) -> TableWriter {
        var table = TableWriter(["RECORDING", "RECORDED", "OWNER", "STATE", "METHOD", "SCORE", "MEETING", "TITLE"])
        for link in links {
            table.add([
                String(link.recording), link.recordedAt.map(Output.date) ?? "-", link.owner ?? "-",
                link.state.rawValue + (link.isManual ? " (by hand)" : ""), link.method?.rawValue ?? "-",
                link.score.map { String(format: "%.2f", $0) } ?? "-", link.meeting.map(String.init) ?? "-",
                link.meetingTitle ?? link.candidates.map(contenders) ?? "-",
            ])
        }
        return table
    }

    /// "too close to call: meetings 1 (0.80), 7 (0.80)" from an ambiguous link's candidates.
    static func contenders(_ json: String) -> String {
        guard case .array(let items)? = try? JSONValue.parse(json) else { return json }
        let described = items.compactMap { item -> String? in
            guard let meeting = item["meeting"]?.intValue else { return nil }
            return "\(meeting) (\(item["score"]?.doubleValue.map { String(format: "%.2f", $0) } ?? "?"))"
        }
        return "too close to call: meetings " + described.joined(separator: ", ")
    }

    struct History: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "history", abstract: "Every change of a recording's link, oldest first.",
            discussion: """
                Examples:
                  steno links history 7   # who changed it, when and why
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The recording id.") var recording: Int64

        func run() throws {
            try reportingFailures {
                let entries = try global.withClient { try $0.call(StenoMethods.linksHistory, RecordingReferenceParams(id: recording)) }
                var table = TableWriter(["AT", "BY", "ACTION", "STATE", "MEETING", "REASON"])
                for entry in entries {
                    table.add([
                        Output.date(entry.at), entry.actor, entry.action,
                        "\(entry.fromState?.rawValue ?? "-") → \(entry.toState?.rawValue ?? "-")",
                        "\(entry.fromMeeting.map(String.init) ?? "-") → \(entry.toMeeting.map(String.init) ?? "-")", entry.reason ?? "",
                    ])
                }
                Output.print(Output.json(entries), table: table, format: global.format)
            }
        }
    }
}

extension LinksCommand {
    /// `steno links reset ID`: undo a manual link or unlink; the linker decides now.
    struct Reset: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset",
            abstract: "Hand a recording back to automatic linking (undoes `steno link` and `steno unlink`) and link it now.",
            discussion: """
                Examples:
                  steno links reset 16        the linker decides recording 16's meeting again
                  steno links history 16      shows who reset it and what the linker chose
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The recording id.") var recording: Int64

        func run() throws {
            try reportingFailures {
                let link = try global.withClient { try $0.call(StenoMethods.linksReset, RecordingReferenceParams(id: recording)) }
                let outcome =
                    switch link.state {
                    case .linked: "linked to meeting \(link.meeting.map(String.init) ?? "?") \"\(link.meetingTitle ?? "")\""
                    case .ambiguous: "ambiguous (\(link.candidates.map(LinksCommand.contenders) ?? "too close to call"))"
                    default: link.state.rawValue
                    }
                Output.done(link, "recording \(link.recording) is linked automatically again: \(outcome)", format: global.format)
            }
        }
    }
}

/// `steno link RECORDING MEETING`: a manual link, which automatic linking never overrides.
struct LinkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "link", abstract: "Link a recording to a meeting by hand (wins over automatic links, survives revalidation).",
        discussion: """
            The recording comes first, then the meeting. A recording and a meeting apart in time (beyond the \
            linker's tolerance, 15 minutes by default) are refused with both times; --force links them anyway.

            Examples:
              steno link 16 6             link recording 16 to meeting 6
              steno link 16 6 --force     even though they are days apart
              steno unlink 16             leave recording 16 unlinked
              steno links reset 16        hand recording 16 back to automatic linking
            """)
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The recording id.") var recording: Int64
    @Argument(help: "The meeting id.") var meeting: Int64
    @Flag(name: .long, help: "Link even when the recording and the meeting are apart in time.") var force = false

    func run() throws {
        try reportingFailures {
            let link = try global.withClient {
                try $0.call(StenoMethods.linksSet, LinkSetParams(recording: recording, meeting: meeting, force: force ? true : nil))
            }
            Output.done(
                link, "recording \(link.recording) linked by hand to meeting \(link.meeting.map(String.init) ?? "?") \"\(link.meetingTitle ?? "")\"",
                format: global.format)
        }
    }
}

/// `steno unlink RECORDING`: a manual unlink.
struct UnlinkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlink", abstract: "Unlink a recording by hand; automatic linking leaves it alone until you link or reset it.",
        discussion: """
            The meeting's title, times and attendees stay on the recording for history.

            Examples:
              steno unlink 16             leave recording 16 unlinked
              steno links reset 16        hand it back to automatic linking
            """)
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The recording id.") var recording: Int64

    func run() throws {
        try reportingFailures {
            let link = try global.withClient { try $0.call(StenoMethods.linksRemove, RecordingReferenceParams(id: recording)) }
            let from = link.meetingTitle.map { " (was meeting \(link.meeting.map(String.init) ?? "?") \"\($0)\")" } ?? ""
            Output.done(link, "recording \(link.recording) unlinked by hand\(from)", format: global.format)
        }
    }
}

/// `steno revalidate [--wait]`: re-check every link now.
struct RevalidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revalidate", abstract: "Re-check every link against the calendars now (admin); the nightly run does the same.",
        discussion: """
            Examples:
              steno revalidate --wait   # with progress and the counts
            """)
    @OptionGroup var global: GlobalOptions
    @Flag(name: .long, help: "Wait for the end; show progress and the counts.") var wait = false
    @Option(name: .long, help: "With --wait: give up after this many seconds.") var timeout: Double = 3600

    func run() throws {
        try reportingFailures {
            try global.withClient { client in
                let queued = try client.call(StenoMethods.linksRevalidate)
                guard wait else {
                    Output.done(queued, "revalidation queued as job \(queued.job.id); follow with: steno jobs show \(queued.job.id)", format: global.format)
                    return
                }
                let finished = try JobWaiting.wait(for: [queued.job.id], label: "revalidating", what: "revalidation", timeout: timeout, client: client)
                guard let job = finished[queued.job.id] else { return }
                guard job.state == .succeeded, let result = job.result.flatMap({ try? JSONValue.parse($0) }) else {
                    throw CLIFailure(message: "revalidation \(job.state.rawValue): \(job.lastError ?? "")", exitCode: 1)
                }
                if !global.format.isHuman {
                    Output.print(result, table: TableWriter([]), format: global.format)
                    return
                }
                func count(_ key: String) -> Int64 { result[key]?.intValue ?? 0 }
                Output.say("still valid \(count("still-valid")), refreshed \(count("refreshed")), relinked \(count("relinked")), "
                    + "orphaned \(count("orphaned")), unchanged orphans \(count("unchanged-orphan")), unlinked \(count("unlinked")), "
                    + "ambiguous \(count("ambiguous")), newly linked \(count("newly-linked"))")
            }
        }
    }
}
extension LinkState: ExpressibleByArgument {}
