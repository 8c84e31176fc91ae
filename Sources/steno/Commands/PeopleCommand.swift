import ArgumentParser
import Foundation
import StenoAPI
import StenoCore

/// `steno people`: what the catalog holds about a person, and their erasure.
struct PeopleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "people", abstract: "What the catalog holds about a person, and their erasure (admins).",
        discussion: """
            A person is an email address as calendars name organizers and attendees. show lists what the catalog holds about one (the right of access); forget erases it.

            Examples:
              steno people show dana@example.com
              steno people forget dana@example.com --yes
            """,
        subcommands: [Show.self, Forget.self])

    /// `steno people show EMAIL`.
    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "List what the catalog holds about an email address.",
            discussion: """
                The names the address was seen with, the Steno user whose address it is, how many mirrored events name it, the meetings they are (newest first), the recordings whose attendees name it and the recordings that user owns.

                Examples:
                  steno people show dana@example.com
                  steno people show dana@example.com -o json > dana.json
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The email address.") var email: String

        func run() throws {
            try reportingFailures {
                let person = try global.withClient { client in try client.call(StenoMethods.peopleShow, PersonParams(email: email)) }
                guard global.format.isHuman else { return Output.print(Output.json(person), table: TableWriter([]), format: global.format) }
                if person.isEmpty {
                    return Output.say("the catalog holds nothing about \(person.email)" + (person.forgotten ? " (forgotten: a sync stores it redacted)" : ""))
                }
                Output.say("\(person.email)" + (person.forgotten ? " (forgotten before; found again since)" : ""))
                Output.say("  names: " + (person.names.isEmpty ? "-" : person.names.joined(separator: ", ")))
                Output.say("  user: " + (person.user ?? "-"))
                Output.say("  events: \(person.events), meetings: \(person.meetings.count)")
                for meeting in person.meetings {
                    Output.say("    meeting \(meeting.id): \(meeting.title.isEmpty ? "untitled" : meeting.title)" + (meeting.startsAt.map { ", " + Output.date($0) } ?? ""))
                }
                Output.say("  recordings naming them: " + Self.ids(person.linkedRecordings))
                Output.say("  recordings they own: " + Self.ids(person.ownedRecordings))
            }
        }

        static func ids(_ ids: [Int64]) -> String { ids.isEmpty ? "-" : ids.map(String.init).joined(separator: " ") }
    }

    /// `steno people forget EMAIL [--yes]`.
    struct Forget: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "forget", abstract: "Erase an email address and its names from the catalog.",
            discussion: """
                Removes the address and the display names it carried from the mirrored events, the recordings' cached attendees, the meetings' people and the search index, and from the user it belonged to (the account stays). Each of its entries becomes a redacted one (forgotten-…@redacted.invalid, without a name), and a later sync that brings the person back stores that redacted entry too: the catalog keeps only the SHA-256 of the address. Titles, transcripts and files are not rewritten, and backups keep what they held until rotated (steno admin backup --prune-older-than). The recordings the user owns are listed for you to delete (steno recordings delete ID… --file). On a terminal it shows what goes and asks; --yes for scripts.

                Examples:
                  steno people forget dana@example.com
                  steno people forget dana@example.com --yes -o json
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The email address.") var email: String
        @Flag(name: .long, help: "Do not ask.") var yes = false

        func run() throws {
            try reportingFailures {
                let report = try global.withClient { client -> ForgetReport in
                    if !yes {
                        try RecordingsCommand.requireTerminal(for: "forgetting a person")
                        let person = try client.call(StenoMethods.peopleShow, PersonParams(email: email))
                        Output.say(
                            "  \(person.email): \(person.names.count) name(s), \(person.events) event(s), \(person.meetings.count) meeting(s), "
                                + "\(person.linkedRecordings.count) recording(s) naming them" + (person.user.map { "; address of user \($0)" } ?? ""))
                        try RecordingsCommand.requireYes(to: "Forget \(person.email)? This cannot be undone.", refused: "nothing forgotten")
                    }
                    return try client.call(StenoMethods.peopleForget, PersonParams(email: email))
                }
                guard global.format.isHuman else { return Output.print(Output.json(report), table: TableWriter([]), format: global.format) }
                Output.say(
                    "forgot \(email.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()): \(report.events) event(s), \(report.recordings) recording(s), "
                        + "\(report.meetings) meeting(s) now name \(report.redactedAddress)")
                if let user = report.user {
                    Output.say("the address was removed from user \(user); the account stays (steno users remove \(user) removes it)")
                }
                if !report.ownedRecordings.isEmpty {
                    Output.say(
                        "\(report.ownedRecordings.count) recording(s) owned by \(report.user ?? "them") remain; to delete them: steno recordings delete "
                            + report.ownedRecordings.map(String.init).joined(separator: " ") + " --file")
                }
            }
        }
    }
}
