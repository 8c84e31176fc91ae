import ArgumentParser
import Foundation
import StenoAPI
import StenoCore

/// `steno recordings …`: what the catalog holds.
struct RecordingsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recordings", abstract: "List and inspect recordings.",
        subcommands: [List.self, Show.self, ExplainCommand.self], defaultSubcommand: List.self)

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List recordings you may see (admins: all).")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var list: ListOptions
        @Option(name: .long, help: "Only this owner's (name, email or id).") var owner: String?
        @Option(name: .long, help: "pending, ready, failed or missing.") var status: RecordingStatus?
        @Flag(name: .long, help: "Only failed recordings, with the reason.") var failed = false
        @Flag(name: .long, help: "Only recordings with warnings (a file cut short, a sidecar that disagrees).") var warnings = false
        @Option(name: .long, help: "Recorded on or after (ISO 8601, today, yesterday, monday…).") var from: DateArgument?
        @Option(name: .long, help: "Recorded before.") var to: DateArgument?

        func validate() throws {
            try DateArgument.validateRange(from: from, to: to)
        }

        func run() throws {
            try reportingFailures {
                let status = failed ? .failed : self.status
                let (recordings, more) = try global.withClient { client in
                    try list.collect { cursor, size in
                        try client.call(
                            StenoMethods.recordingsList,
                            RecordingListParams(
                                owner: owner, status: status, warnings: warnings ? true : nil, from: from?.date, to: to?.date,
                                cursor: cursor, limit: size))
                    }
                }
                Output.print(Output.json(recordings), table: RecordingsCommand.table(recordings, reasons: failed || status == .failed || warnings), format: global.format)
                Output.moreHint(more, "recordings")
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one recording in full.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The recording id.") var id: Int64

        func run() throws {
            try reportingFailures {
                let recording = try global.withClient { try $0.call(StenoMethods.recordingsGet, RecordingReferenceParams(id: id)) }
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
                for path in recording.paths { table.add(["path", path.path + (path.isPresent ? "" : " (gone)")]) }
                if let title = recording.title { table.add(["title", title]) }
                if let uid = recording.iCalUIDHint { table.add(["iCalUId hint", uid]) }
                if let event = recording.eventIDHint { table.add(["event id hint", event]) }
                table.add(["sha-256", recording.contentHash ?? "-"])
                if let transcript = recording.transcript { table.add(["transcript", String(transcript.prefix(200))]) }
                Output.print(Output.json(recording), table: table, format: global.format)
            }
        }
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
