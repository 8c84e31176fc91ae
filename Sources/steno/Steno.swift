import ArgumentParser
import Foundation

/// `steno`: the command-line client of the Steno daemon. Every command is one or a few
/// JSON-RPC calls over the daemon's Unix socket.
@main
struct Steno: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "steno",
        abstract: "Query and manage the Steno catalog of meeting recordings.",
        discussion: """
            Talks to stenod over its Unix socket: --socket, else STENO_SOCKET, else socket = "PATH" in
            ~/.config/steno/client.toml or /etc/steno/client.toml, else $XDG_RUNTIME_DIR/steno/stenod.sock
            or /run/steno/stenod.sock, whichever answers.
            Exit codes: 0 ok, 1 failed, 3 daemon not running, 4 not found, 5 not permitted, 64 usage.

            Examples:
              steno status              # the daemon's state and who you are
              steno recordings          # the newest recordings you may see
              steno links --ambiguous   # links that need a person
              steno meetings --help     # one command's options and examples
            """,
        version: "0.1.0",
        subcommands: [
            StatusCommand.self, RecordingsCommand.self, IngestCommand.self, AccountsCommand.self, CalendarsCommand.self, SyncCommand.self, DevicesCommand.self,
            MeetingsCommand.self, AttendeesCommand.self, SearchCommand.self,
            LinksCommand.self, LinkCommand.self, UnlinkCommand.self, RevalidateCommand.self,
            UsersCommand.self, JobsCommand.self, RetentionCommand.self, AuditCommand.self, PeopleCommand.self, AdminCommand.self, DoctorCommand.self, CallCommand.self, DemoCommand.self, ManualCommand.self,
        ]
    )

    /// Parses with the global options allowed before the subcommand (`steno --socket S users`).
    static func main() {
        let arguments = GlobalOptions.hoisted(Array(CommandLine.arguments.dropFirst()))
        do {
            var command = try parseAsRoot(arguments)
            try command.run()
        } catch {
            exit(withError: error)
        }
    }
}
