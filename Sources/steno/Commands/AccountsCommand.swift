import ArgumentParser
import Foundation
import StenoAPI
import StenoCore

/// `steno accounts …`: the calendar accounts Steno mirrors.
struct AccountsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accounts", abstract: "Add, list and remove calendar accounts (ICS files or URLs, CalDAV servers, Microsoft 365).",
        discussion: """
            Examples:
              steno accounts                               # health: last success, last error, next sync
              steno accounts add ics team.ics --wait       # mirror a calendar file
              steno accounts update 2 --password-file pw   # new credentials, same mirror
              steno accounts remove 2                      # the account and its events
            """,
        subcommands: [List.self, Add.self, Update.self, Remove.self, SignIn.self], defaultSubcommand: List.self)

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List calendar accounts with their health: last success, last error, next sync.",
            discussion: """
                Examples:
                  steno accounts                      # yours (admins: every account)
                  steno accounts list --owner alice   # alice's (admins)
                """)
        @OptionGroup var global: GlobalOptions
        @OptionGroup var list: ListOptions
        @Option(name: .long, help: "Only this owner's accounts (admins).") var owner: String?

        func run() throws {
            try reportingFailures {
                let (accounts, more, signIns) = try global.withClient { client in
                    let (accounts, more) = try list.collect { cursor, size in
                        try client.send(StenoMethods.accountsList, AccountListParams(owner: owner, cursor: cursor, limit: size))
                    }
                    // A daemon older than the CLI has no sign-in list: the accounts still show.
                    let signIns = (try? client.call(StenoMethods.accountsSignInList, AccountSignInListParams(owner: owner))) ?? []
                    return (accounts, more, signIns)
                }
                Output.print(Output.json(accounts), table: AccountsCommand.table(accounts), format: global.format) {
                    owner == nil
                        ? "no calendar accounts yet: add one with steno accounts add ics FILE-OR-URL (or caldav, graph; see steno accounts add --help)"
                        : "no calendar accounts of \(owner ?? "")"
                }
                Output.moreHint(more, "accounts")
                if global.format.isHuman {
                    for account in accounts where account.lastError != nil && account.health != .ok {
                        Output.say("account \(account.id): \(account.lastError ?? "")")
                    }
                    for signIn in signIns { Output.say(AccountsCommand.line(signIn)) }
                }
            }
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a calendar account and sync it.",
            discussion: """
                Examples:
                  # a calendar file, folder or URL
                  steno accounts add ics https://example.com/team.ics --wait
                  # iCloud, with an app-specific password
                  steno accounts add caldav --url https://caldav.icloud.com/ \\
                      --user me@icloud.com --password-file ~/.icloud-app-pw
                  # Microsoft 365: open the URL shown, enter the code
                  steno accounts add graph --client-id APP-ID --wait
                """, subcommands: [ICS.self, CalDAV.self, Graph.self, Device.self])
    }

    /// `device` accounts belong to a phone and come with its token, so they are made by
    /// `steno devices`; this answers a person who looks for them here, without asking the daemon.
    struct Device: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "device", abstract: "Devices (iPhones with the Steno agent) are added with steno devices add or steno devices pair.",
            discussion: """
                Examples:
                  steno devices pair --label my-iphone   # a code to type on the phone
                """)
        @Argument(parsing: .allUnrecognized, help: .hidden) var ignored: [String] = []

        func run() throws {
            try reportingFailures {
                throw CLIFailure(
                    message: """
                        device accounts are made by adding the device: steno devices pair --label NAME prints a one-time \
                        code to enter on the phone; steno devices add --label NAME prints a token (see steno devices --help)
                        """,
                    exitCode: 64)
            }
        }
    }

    struct ICS: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ics", abstract: "Mirror a .ics file, a folder of .ics files, or an http(s)/webcal URL.",
            discussion: """
                Examples:
                  # a file on the daemon's machine
                  steno accounts add ics Media/calendars/team.ics --wait
                  # a URL behind a password, for bob (admins)
                  steno accounts add ics https://cal.example/team.ics \\
                      --user bob --password-file pw --owner bob
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "A .ics file or folder on the daemon's machine, or a URL.") var source: String
        @Option(name: .long, help: "The owner (name, email or id; admins). Default: you.") var owner: String?
        @Option(name: .long, help: "For a URL: the user name (with --password-file).") var user: String?
        @Option(name: .customLong("password-file"), help: "For a URL: a file holding the password ('-' reads standard input).")
        var passwordFile: String?
        @Flag(name: .long, help: "Wait for the first sync and show what it mirrored.") var wait = false

        func run() throws {
            try reportingFailures {
                let isURL = ["http://", "https://", "webcal://"].contains { source.lowercased().hasPrefix($0) }
                let resolved = isURL ? source : URL(fileURLWithPath: source).standardizedFileURL.path
                let params = AccountAddParams(
                    provider: .ics, owner: owner, source: resolved, user: user, password: try passwordFile.map(SecretFile.read))
                try AccountsCommand.add(params, wait: wait, global: global)
            }
        }
    }

    struct CalDAV: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "caldav",
            abstract: "Mirror the calendars of a CalDAV account (iCloud, Google, Nextcloud, Radicale, …).",
            discussion: """
                Basic authentication: --user and --password-file (for iCloud, an app-specific password).
                OAuth 2.0: --bearer-token-file, and to renew it --refresh-token-file --token-url --client-id [--client-secret-file].

                Examples:
                  # iCloud, with an app-specific password
                  steno accounts add caldav --url https://caldav.icloud.com/ \\
                      --user me@icloud.com --password-file ~/.icloud-app-pw --wait
                  # a server taking a bearer token
                  steno accounts add caldav --url https://dav.example/ --bearer-token-file token
                """)
        @OptionGroup var global: GlobalOptions
        @Option(name: .long, help: "The server (or principal) URL, e.g. https://caldav.icloud.com/.") var url: String
        @Option(name: .long, help: "The user name.") var user: String?
        @Option(name: .customLong("password-file"), help: "A file holding the password ('-' reads standard input).")
        var passwordFile: String?
        @Option(name: .customLong("bearer-token-file"), help: "A file holding an OAuth 2.0 access token.") var bearerTokenFile: String?
        @Option(name: .customLong("refresh-token-file"), help: "A file holding an OAuth 2.0 refresh token.") var refreshTokenFile: String?
        @Option(name: .customLong("token-url"), help: "The OAuth 2.0 token endpoint.") var tokenURL: String?
        @Option(name: .customLong("client-id"), help: "The OAuth 2.0 client id.") var clientID: String?
        @Option(name: .customLong("client-secret-file"), help: "A file holding the OAuth 2.0 client secret.") var clientSecretFile: String?
        @Option(name: .long, help: "The owner (name, email or id; admins). Default: you.") var owner: String?
        @Flag(name: .long, help: "Wait for the first sync and show what it mirrored.") var wait = false

        func validate() throws {
            guard passwordFile != nil || bearerTokenFile != nil else {
                throw ValidationError("give --password-file (with --user) or --bearer-token-file")
            }
        }

        func run() throws {
            try reportingFailures {
                let params = AccountAddParams(
                    provider: .caldav, owner: owner, url: url, user: user, password: try passwordFile.map(SecretFile.read),
                    bearerToken: try bearerTokenFile.map(SecretFile.read), refreshToken: try refreshTokenFile.map(SecretFile.read),
                    tokenURL: tokenURL, clientID: clientID, clientSecret: try clientSecretFile.map(SecretFile.read))
                try AccountsCommand.add(params, wait: wait, global: global)
            }
        }
    }

    struct Update: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "update",
            abstract: "Give an account new credentials (or an ICS account a new source), keeping its mirror and links.",
            discussion: """
                Examples:
                  steno accounts update 3 --password-file ~/.icloud-app-password
                  steno accounts update 4 --bearer-token-file token --refresh-token-file refresh
                  steno accounts update 5 --source https://example.com/team.ics
                Microsoft accounts sign in again with steno accounts signin ID.
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The account's id.") var id: Int64
        @Option(name: .customLong("password-file"), help: "A file holding the new password ('-' reads standard input).")
        var passwordFile: String?
        @Option(name: .long, help: "A new user name.") var user: String?
        @Option(name: .customLong("bearer-token-file"), help: "A file holding a new OAuth 2.0 access token.") var bearerTokenFile: String?
        @Option(name: .customLong("refresh-token-file"), help: "A file holding a new OAuth 2.0 refresh token.") var refreshTokenFile: String?
        @Option(name: .customLong("token-url"), help: "A new OAuth 2.0 token endpoint.") var tokenURL: String?
        @Option(name: .customLong("client-id"), help: "A new OAuth 2.0 client id.") var clientID: String?
        @Option(name: .customLong("client-secret-file"), help: "A file holding a new OAuth 2.0 client secret.") var clientSecretFile: String?
        @Option(name: .long, help: "ICS: the new .ics file or folder (on the daemon's machine) or URL.") var source: String?
        @Flag(name: .long, help: "Wait for the sync with the new credentials and show what it mirrored.") var wait = false

        func run() throws {
            try reportingFailures {
                let resolved = source.map { source in
                    let isURL = ["http://", "https://", "webcal://"].contains { source.lowercased().hasPrefix($0) }
                    return isURL ? source : URL(fileURLWithPath: source).standardizedFileURL.path
                }
                let params = AccountUpdateParams(
                    id: id, source: resolved, user: user, password: try passwordFile.map(SecretFile.read),
                    bearerToken: try bearerTokenFile.map(SecretFile.read), refreshToken: try refreshTokenFile.map(SecretFile.read),
                    tokenURL: tokenURL, clientID: clientID, clientSecret: try clientSecretFile.map(SecretFile.read))
                guard params.changesSomething else {
                    throw CLIFailure(
                        message: "nothing to update: give --password-file, --bearer-token-file, --refresh-token-file, --user or --source",
                        exitCode: 64)
                }
                try global.withClient { client in
                    let result = try client.call(StenoMethods.accountsUpdate, params)
                    guard wait, result.job != nil else {
                        Output.print(Output.json(result), table: table([result.account]), format: global.format)
                        if global.format.isHuman, result.job != nil {
                            Output.say("sync queued; follow with: steno accounts list (or add --wait)")
                        }
                        return
                    }
                    try showAfterFirstSync(
                        result.account, job: result.job, client: client, global: global, failure: "the sync with the new credentials failed")
                }
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove an account and its mirrored events (links keep their cached meeting and attendees).",
            discussion: """
                Examples:
                  steno accounts remove 2   # links keep their cached meeting and attendees
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The account's id.") var id: Int64

        func run() throws {
            try reportingFailures {
                let removed = try global.withClient { try $0.call(StenoMethods.accountsRemove, AccountIDParams(id: id)) }
                Output.done(removed, "removed account \(removed.id) (\(removed.name))", format: global.format)
            }
        }
    }

    static func add(_ params: AccountAddParams, wait: Bool, global: GlobalOptions) throws {
        try global.withClient { client in
            let result = try client.call(StenoMethods.accountsAdd, params)
            guard wait, result.job != nil else {
                Output.print(Output.json(result), table: table([result.account]), format: global.format)
                if global.format.isHuman, result.job != nil {
                    Output.say("first sync queued; follow with: steno accounts list (or add --wait)")
                }
                return
            }
            try showAfterFirstSync(result.account, job: result.job, client: client, global: global)
        }
    }

    /// Waits for an account's first sync, then shows the account and what the sync did.
    static func showAfterFirstSync(
        _ added: AccountSummary, job: Int64?, client: StenoClient, global: GlobalOptions, failure: String = "the first sync failed"
    ) throws {
        // A first sync that fails once says why at once, rather than after every retry.
        let finished = try job.map {
            try JobWaiting.wait(for: [$0], label: "syncing", what: "sync(s)", timeout: 600, client: client, untilFailedAttempt: true)
        } ?? [:]
        let account = try client.call(StenoMethods.accountsList, AccountListParams()).items.first { $0.id == added.id }
        Output.print(Output.json(account ?? added), table: table([account ?? added]), format: global.format)
        let syncs = finished.values.sorted { $0.id < $1.id }
        if global.format.isHuman, !syncs.isEmpty { SyncCommand.printSummary(syncs) }
        let retry = syncs.first { $0.state == .failed }.map { "; the daemon tries again at \(Output.date($0.runAt))" } ?? ""
        try JobWaiting.requireSuccess(SyncCommand.failures(syncs), saying: { _ in "\(failure)\(retry); see steno accounts list" })
    }

    static func table(_ accounts: [AccountSummary]) -> TableWriter {
        var table = TableWriter(["ID", "PROVIDER", "OWNER", "SOURCE", "HEALTH", "CALENDARS", "EVENTS", "LAST SUCCESS", "NEXT SYNC"])
        for account in accounts {
            table.add([
                String(account.id), account.provider.rawValue, account.owner, account.name, account.health.rawValue,
                String(account.calendars), String(account.events), account.lastSuccessAt.map(Output.date) ?? "never",
                account.nextSyncAt.map(Output.date) ?? (account.health == .needsCredentials ? "after new credentials" : "-"),
            ])
        }
        return table
    }
}

/// Secrets come from files (or standard input), never from the command line, where `ps` and
/// shell history would show them.
enum SecretFile {
    static func read(_ path: String) throws -> String {
        let data: Data
        if path == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw CLIFailure(message: "cannot read \(path)", exitCode: 1)
            }
            data = contents
        }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .newlines)
        guard !text.isEmpty else { throw CLIFailure(message: "\(path) is empty", exitCode: 1) }
        return text
    }
}
