import ArgumentParser
import Foundation
import StenoAPI
import StenoCore

extension AccountsCommand {
    /// `steno accounts add graph`: a person's Microsoft 365 calendar by device sign-in, or an
    /// organisation's calendars with client credentials.
    struct Graph: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "graph",
            abstract: "Mirror Microsoft 365 / Outlook calendars through Microsoft Graph.",
            discussion: """
                Your own calendar: the daemon starts a device sign-in; open the URL shown, enter the code and sign in.
                  steno accounts add graph --client-id APP-ID [--tenant common|ID] [--wait]
                An organisation's calendars (application permission Calendars.Read, granted by an admin):
                  steno accounts add graph --tenant ID --client-id APP-ID --client-secret-file F [--users a@corp,b@corp]
                Without --users, every Steno user's email is read. --authority and --graph-url point at national clouds.

                Examples:
                  # your own calendars (device sign-in)
                  steno accounts add graph --client-id APP-ID --wait
                  # with write access
                  steno accounts add graph --client-id APP-ID --write --wait
                  # an organisation's mailboxes, with an app secret
                  steno accounts add graph --tenant contoso.com --client-id APP-ID \\
                      --client-secret-file app.secret --users a@contoso.com,b@contoso.com
                """)
        @OptionGroup var global: GlobalOptions
        @Option(name: .long, help: "The tenant: common (default), organizations, or a tenant id or domain.") var tenant: String?
        @Option(name: .customLong("client-id"), help: "The application (client) id registered in Microsoft Entra.") var clientID: String
        @Option(name: .customLong("client-secret-file"), help: "Organisation account: a file holding the client secret.")
        var clientSecretFile: String?
        @Option(name: .long, help: "Organisation account: users (ids or principal names), comma-separated.") var users: String?
        @Option(name: .long, help: "The identity platform authority (default https://login.microsoftonline.com).") var authority: String?
        @Option(name: .customLong("graph-url"), help: "The Graph base URL (default https://graph.microsoft.com/v1.0).") var graphURL: String?
        @Flag(name: .long, help: "Ask for write access (Calendars.ReadWrite), for creating and renaming meetings.") var write = false
        @Option(name: .long, help: "The owner (name, email or id; admins). Default: you.") var owner: String?
        @Flag(name: .long, help: "Wait for the sign-in and the first sync, and show what it mirrored.") var wait = false

        func validate() throws {
            if users != nil && clientSecretFile == nil { throw ValidationError("--users needs --client-secret-file (an organisation account)") }
        }

        func run() throws {
            try reportingFailures {
                if let clientSecretFile {
                    let params = AccountAddParams(
                        provider: .graph, owner: owner, clientID: clientID, clientSecret: try SecretFile.read(clientSecretFile),
                        tenant: tenant, users: users.map { $0.split(separator: ",").map { String($0) } }, authority: authority,
                        graphURL: graphURL)
                    try AccountsCommand.add(params, wait: wait, global: global)
                    return
                }
                let params = AccountSignInParams(
                    owner: owner, tenant: tenant, clientID: clientID, authority: authority, graphURL: graphURL, writeAccess: write)
                try AccountsCommand.signIn(params, wait: wait, global: global)
            }
        }
    }

    /// `steno accounts signin ID`: signs a Graph account in again (its sign-in expired or was revoked).
    struct SignIn: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "signin", abstract: "Sign a Microsoft 365 account in again (or give an organisation account a new secret).",
            discussion: """
                Examples:
                  # its sign-in expired or was revoked
                  steno accounts signin 3 --wait
                  # ask for write access too
                  steno accounts signin 3 --write --wait
                  # an organisation account's new secret
                  steno accounts signin 4 --client-secret-file new.secret
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The account's id.") var id: Int64
        @Option(name: .customLong("client-secret-file"), help: "Organisation account: a file holding the new client secret.")
        var clientSecretFile: String?
        @Flag(name: .long, help: "Ask for write access (Calendars.ReadWrite), for creating and renaming meetings (kept once given).")
        var write = false
        @Flag(name: .long, help: "Wait for the sign-in and the sync after it.") var wait = false

        func run() throws {
            try reportingFailures {
                let params = AccountSignInParams(
                    account: id, writeAccess: write ? true : nil, clientSecret: try clientSecretFile.map(SecretFile.read))
                try AccountsCommand.signIn(params, wait: wait, global: global)
            }
        }
    }

    /// Starts a sign-in, shows where to sign in, and with `wait` follows it to the first sync.
    static func signIn(_ params: AccountSignInParams, wait: Bool, global: GlobalOptions) throws {
        try global.withClient { client in
            let started = try client.call(StenoMethods.accountsSignIn, params)
            if let uri = started.verificationURI, let code = started.userCode {
                let instructions = "To sign in, open \(uri) and enter the code \(code)"
                    + (started.expiresAt.map { " (valid until \(Output.date($0)))" } ?? "")
                // On standard error for --json, so standard output stays one JSON document.
                if global.format.isHuman {
                    Output.say(instructions)
                } else {
                    FileHandle.standardError.write(Data((TerminalText.cleanLines(instructions) + "\n").utf8))
                }
            }
            guard wait else {
                if global.format.isHuman {
                    Output.say("the daemon finishes the sign-in in the background; then see: steno accounts list")
                } else {
                    Output.print(Output.json(started), table: TableWriter(["ID"]), format: global.format)
                }
                return
            }
            var status = started.status
            let deadline = (started.expiresAt ?? Date()).addingTimeInterval(60)
            let pause = max(0.5, min(started.interval ?? 2, 5))
            while status.state == .pending, Date() < deadline {
                Thread.sleep(forTimeInterval: pause)
                status = try client.call(StenoMethods.accountsSignInStatus, AccountSignInStatusParams(id: started.id))
            }
            switch status.state {
            case .succeeded:
                guard let account = status.account else { throw CLIFailure(message: "signed in, but the account is gone", exitCode: 1) }
                try showAfterFirstSync(account, job: status.job, client: client, global: global)
            case .failed:
                throw CLIFailure(message: "sign-in failed: \(status.message ?? "no reason given")", exitCode: 1)
            case .pending:
                throw CLIFailure(message: "the sign-in did not finish before its code expired; run the command again", exitCode: 1)
            }
        }
    }

    /// A sign-in that gave no account (yet), as `steno accounts` lists it under the table.
    static func line(_ signIn: AccountSignInStatus) -> String {
        let owner = signIn.owner.map { " for \($0)" } ?? ""
        switch signIn.state {
        case .failed:
            let when = (signIn.endedAt ?? signIn.startedAt).map { " at \(Output.date($0))" } ?? ""
            return "Microsoft sign-in \(signIn.id)\(owner) failed\(when): \(signIn.message ?? "no reason given")"
        case .pending, .succeeded:
            let since = signIn.startedAt.map { " since \(Output.date($0))" } ?? ""
            return "Microsoft sign-in \(signIn.id)\(owner) waiting for the code to be entered\(since)"
        }
    }
}
