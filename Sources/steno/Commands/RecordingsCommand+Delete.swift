#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Foundation
import StenoAPI
import StenoCore

extension RecordingsCommand {
    /// `steno recordings delete ID… [--file] [--forget-content] [--yes]`.
    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete", abstract: "Delete recordings from the catalog (and with --file, their files).",
            discussion: """
                Removes each recording with its paths, link, link history, transcript and search entries; with --file also its file(s) in the inbox (never a file outside it). Members delete their own recordings, admins any. On a terminal it names what goes and asks; --yes skips the question (scripts must pass it).

                A file left in the inbox is not catalogued again: the content of a deleted recording is remembered by its hash alone, until steno recordings forget-content HASH. --forget-content does not remember it, so a file left in the inbox comes back as a new recording at the next rescan.

                Examples:
                  steno recordings delete 42                  # asks, then deletes the recording; the file stays
                  steno recordings delete 42 43 --file --yes  # the recordings and their files, without asking
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The recording ids.") var ids: [Int64]
        @Flag(name: .long, help: "Also remove the recordings' files from the inbox.") var file = false
        @Flag(name: .long, help: "Do not remember the content: the same bytes are catalogued anew when they next arrive.")
        var forgetContent = false
        @Flag(name: [.short, .long], help: "Do not ask.") var yes = false
        @Option(name: .long, help: "Give up waiting for the deletion after this many seconds.") var timeout: Double = 600

        func run() throws {
            try reportingFailures {
                try global.withClient { client in
                    if !yes { try confirm(client: client) }
                    let marked = try client.call(
                        StenoMethods.recordingsDelete,
                        RecordingDeleteParams(ids: ids, files: file ? true : nil, forgetContent: forgetContent ? true : nil))
                    let jobs = try JobWaiting.wait(for: [marked.job], label: "deleting", what: "deletion job", timeout: timeout, client: client)
                    guard let job = jobs[marked.job], job.state == .succeeded else {
                        let job = jobs[marked.job]
                        throw CLIFailure(
                            message: "the deletion (job \(marked.job)) ended \(job?.state.rawValue ?? "unknown"): \(job?.lastError ?? "see steno jobs show \(marked.job)")",
                            exitCode: 1)
                    }
                    let result = job.result.flatMap { try? JSONValue.parse($0) }
                    let files = result?["files"]?.intValue ?? 0
                    if global.format.isHuman {
                        Output.say("deleted \(marked.recordings.count) recording(s)" + (file ? ", removed \(files) file(s)" : ""))
                    } else {
                        Output.print(
                            .object(["recordings": Output.json(marked.recordings), "files": .int(Int64(files)), "job": .int(marked.job)]),
                            table: TableWriter([]), format: global.format)
                    }
                }
            }
        }

        /// Names each recording and what goes with it, and asks; refuses without a terminal.
        private func confirm(client: StenoClient) throws {
            try RecordingsCommand.requireTerminal(for: "deleting")
            var fileCount = 0
            for id in Array(Set(ids)).sorted() {
                let recording = try client.call(StenoMethods.recordingsGet, RecordingReferenceParams(id: id))
                let present = recording.paths.filter(\.isPresent).map(\.path)
                fileCount += file ? present.count : 0
                let name = recording.title ?? present.first ?? recording.paths.first?.path ?? "untitled"
                let when = recording.recordedAt.map { ", recorded " + Output.date($0) } ?? ""
                Output.say("  recording \(id): \(name) (\(recording.ownerName ?? "no owner")\(when))")
                if file { for path in present { Output.say("    file \(path)") } }
            }
            let files = file ? " and \(fileCount) file(s) in the inbox" : " (the files stay in the inbox)"
            try RecordingsCommand.requireYes(to: "Delete \(Set(ids).count) recording(s)\(files)?")
        }
    }

    /// `steno recordings forget-content HASH…`.
    struct ForgetContent: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "forget-content", abstract: "Let the content of deleted recordings be catalogued again.",
            discussion: """
                A deleted recording's content is remembered by its SHA-256, so the same bytes are not catalogued again (an ingest names the hash when it ignores such a file). Forgotten, they are catalogued anew when they next arrive: touch the file or run steno ingest on it. Members forget what they deleted, admins anything.

                Examples:
                  steno recordings forget-content 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "Content hashes (64 hex digits).") var hashes: [String]

        func run() throws {
            try reportingFailures {
                let result = try global.withClient { client in
                    try client.call(StenoMethods.recordingsForgetContent, ForgetContentParams(contentHashes: hashes))
                }
                guard global.format.isHuman else {
                    return Output.print(Output.json(result), table: TableWriter([]), format: global.format)
                }
                let unknown = Set(hashes.map { $0.lowercased() }).subtracting(result.forgotten).sorted()
                Output.say("forgot \(result.forgotten.count) content hash(es)" + (unknown.isEmpty ? "" : "; not remembered: " + unknown.joined(separator: ", ")))
            }
        }
    }
}

extension RecordingsCommand {
    /// `steno recordings purge --missing --older-than 30d [--dry-run] [--yes]`.
    struct Purge: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "purge", abstract: "Delete recordings whose files have been gone for a while (admins).",
            discussion: """
                A recording whose files left the inbox stays in the catalog as missing, so that nothing is forgotten silently. purge deletes those missing for longer than --older-than, as steno recordings delete does (their content remembered). [retention] purge_missing_after_days in stenod.toml does it every night.

                Examples:
                  steno recordings purge --missing --older-than 30d --dry-run   # what would go
                  steno recordings purge --missing --older-than 30d --yes
                """)
        @OptionGroup var global: GlobalOptions
        @Flag(name: .long, help: "Purge recordings whose files are gone (required: the only kind purged).") var missing = false
        @Option(name: .customLong("older-than"), help: "Missing for longer than this: 30d, 2w, or a number of days.") var olderThan: String
        @Flag(name: .long, help: "List what would go; delete nothing.") var dryRun = false
        @Flag(name: [.short, .long], help: "Do not ask.") var yes = false
        @Option(name: .long, help: "Give up waiting for the deletion after this many seconds.") var timeout: Double = 600

        func validate() throws {
            guard missing else { throw ValidationError("say what to purge: --missing (recordings whose files are gone)") }
            guard let days = DayCount.parse(olderThan), days >= 1 else {
                throw ValidationError("--older-than takes days: 30d, 2w or 30 (at least one day), not \(olderThan)")
            }
        }

        func run() throws {
            try reportingFailures {
                let days = DayCount.parse(olderThan) ?? 0
                try global.withClient { client in
                    let preview = try client.call(StenoMethods.recordingsPurge, RecordingPurgeParams(olderThanDays: days, dryRun: true))
                    if dryRun || preview.recordings.isEmpty {
                        if !global.format.isHuman { return Output.print(Output.json(preview), table: TableWriter([]), format: global.format) }
                        return Output.say(
                            "\(preview.recordings.count) recording(s) missing for more than \(days) day(s)"
                                + (preview.recordings.isEmpty ? "" : ": " + preview.recordings.map(String.init).joined(separator: " ")))
                    }
                    if !yes {
                        try RecordingsCommand.requireTerminal(for: "purging")
                        try RecordingsCommand.requireYes(to: "Delete \(preview.recordings.count) recording(s) missing for more than \(days) day(s)?")
                    }
                    let purged = try client.call(StenoMethods.recordingsPurge, RecordingPurgeParams(olderThanDays: days))
                    let jobs = try JobWaiting.wait(for: purged.jobs, label: "deleting", what: "deletion job(s)", timeout: timeout, client: client)
                    let failed = jobs.values.filter { $0.state != .succeeded }.map { "job \($0.id) (\($0.lastError ?? $0.state.rawValue))" }
                    try JobWaiting.requireSuccess(failed) { "\($0) deletion job(s) did not finish" }
                    if global.format.isHuman {
                        Output.say("deleted \(purged.recordings.count) recording(s) missing for more than \(days) day(s)")
                    } else {
                        Output.print(Output.json(purged), table: TableWriter([]), format: global.format)
                    }
                }
            }
        }
    }
}

extension RecordingsCommand {
    /// Refuses to ask without a terminal: a script must say --yes itself.
    static func requireTerminal(for doing: String) throws {
        guard isatty(STDIN_FILENO) == 1 else {
            throw CLIFailure(message: "\(doing) needs a yes: pass --yes when not asking on a terminal", exitCode: 64)
        }
    }

    /// Asks `question` on the terminal; anything but y or yes does nothing, and says `refused`.
    static func requireYes(to question: String, refused: String = "nothing deleted") throws {
        Output.write(TerminalText.clean(question + " [y/N] "))
        guard let answer = readLine(), ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased()) else {
            throw CLIFailure(message: refused, exitCode: 1)
        }
    }
}
