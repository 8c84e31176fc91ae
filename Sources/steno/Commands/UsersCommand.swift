import ArgumentParser
import StenoAPI
import StenoCore

/// `steno users …`: who may use Steno (admin only).
struct UsersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users", abstract: "Manage users: who may connect, their emails, uids and role.",
        discussion: """
            Examples:
              # who may connect
              steno users
              # a member
              steno users add bob --email bob@corp.example --uid 1002
              # make bob an admin
              steno users update bob --role admin
            """,
        subcommands: [List.self, Add.self, Update.self, Remove.self], defaultSubcommand: List.self)

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List users.",
            discussion: """
                Examples:
                  steno users list -o wide   # every column whole
                """)
        @OptionGroup var global: GlobalOptions
        @OptionGroup var list: ListOptions

        func run() throws {
            try reportingFailures {
                let (users, more) = try global.withClient { client in
                    try list.collect { cursor, size in
                        try client.send(StenoMethods.usersList, PageParams(cursor: cursor, limit: size))
                    }
                }
                Output.print(Output.json(users), table: UsersCommand.table(users), format: global.format)
                Output.moreHint(more, "users")
            }
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a user.",
            discussion: """
                Examples:
                  # an admin
                  steno users add alice --email alice@corp.example --uid 1000 --role admin
                  # a member with two addresses
                  steno users add bob --email bob@corp.example --email b@corp.example --uid 1002
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "Short name, also the user's inbox folder (inbox/NAME/).") var name: String
        @Option(name: .customLong("display-name"), help: "Human name.") var displayName: String?
        @Option(name: .customLong("email"), help: "An email address (repeatable).") var emails: [String] = []
        @Option(name: .customLong("uid"), help: "A Unix uid the user connects from (repeatable).") var uids: [UInt32] = []
        @Option(name: .long, help: "admin or member (default member).") var role: Role?

        func run() throws {
            try reportingFailures {
                let user = try global.withClient {
                    try $0.call(StenoMethods.usersAdd, UserAddParams(name: name, displayName: displayName, emails: emails, uids: uids, role: role))
                }
                Output.print(Output.json(user), table: UsersCommand.table([user]), format: global.format)
            }
        }
    }

    struct Update: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "update", abstract: "Change a user's name, emails, uids or role.",
            discussion: """
                Examples:
                  # one more address, one uid less
                  steno users update bob --add-email robert@corp.example --remove-uid 1002
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The user: name, email or id.") var user: String
        @Option(name: .long, help: "New name.") var name: String?
        @Option(name: .customLong("display-name"), help: "New display name (\"\" clears it).") var displayName: String?
        @Option(name: .customLong("email"), help: "Replace the emails with these (repeatable).") var emails: [String] = []
        @Option(name: .customLong("add-email"), help: "Add an email (repeatable).") var addEmails: [String] = []
        @Option(name: .customLong("remove-email"), help: "Remove an email (repeatable).") var removeEmails: [String] = []
        @Option(name: .customLong("uid"), help: "Replace the uids with these (repeatable).") var uids: [UInt32] = []
        @Option(name: .customLong("add-uid"), help: "Add a uid (repeatable).") var addUids: [UInt32] = []
        @Option(name: .customLong("remove-uid"), help: "Remove a uid (repeatable).") var removeUids: [UInt32] = []
        @Option(name: .long, help: "admin or member.") var role: Role?

        func run() throws {
            try reportingFailures {
                let params = UserUpdateParams(
                    user: user, name: name, displayName: displayName,
                    emails: emails.isEmpty ? nil : emails, addEmails: addEmails.isEmpty ? nil : addEmails,
                    removeEmails: removeEmails.isEmpty ? nil : removeEmails,
                    uids: uids.isEmpty ? nil : uids, addUids: addUids.isEmpty ? nil : addUids,
                    removeUids: removeUids.isEmpty ? nil : removeUids, role: role)
                let updated = try global.withClient { try $0.call(StenoMethods.usersUpdate, params) }
                Output.print(Output.json(updated), table: UsersCommand.table([updated]), format: global.format)
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a user (their recordings stay, without an owner).",
            discussion: """
                Examples:
                  steno users remove bob
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The user: name, email or id.") var user: String

        func run() throws {
            try reportingFailures {
                let removed = try global.withClient { try $0.call(StenoMethods.usersRemove, UserReferenceParams(user: user)) }
                if global.format.isHuman {
                    Output.say("removed user \(removed.name) (id \(removed.id))")
                } else {
                    Output.print(Output.json(removed), table: UsersCommand.table([removed]), format: global.format)
                }
            }
        }
    }

    static func table(_ users: [User]) -> TableWriter {
        var table = TableWriter(["ID", "NAME", "ROLE", "UIDS", "EMAILS", "DISPLAY NAME"])
        for user in users {
            table.add([
                String(user.id), user.name, user.role.rawValue, user.uids.map(String.init).joined(separator: ","),
                user.emails.joined(separator: ","), user.displayName ?? "",
            ])
        }
        return table
    }
}

extension Role: ExpressibleByArgument {}
