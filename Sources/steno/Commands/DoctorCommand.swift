import ArgumentParser
import Foundation
import StenoAPI
import StenoCore

/// `steno doctor`: what an operator would check, each problem with its fix; exits 1 when it
/// found any (3 when no daemon answers).
struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check the daemon, its socket, inbox, secrets key, disk space, accounts and dead jobs; print the fix for each problem.",
        discussion: """
            Members see the checks of their own accounts; the checks of the daemon's machine (socket, inbox folders,
            secrets key, disk space, dead jobs) need an admin. Exit codes: 0 nothing wrong, 1 problems found
            (each with its fix), 3 no daemon answers.
            Examples:
              steno doctor
              steno doctor --json | jq '.checks[] | select(.status == "problem")'
            """)

    @OptionGroup var global: GlobalOptions

    func run() throws {
        try reportingFailures {
            var checks: [DoctorCheck] = []
            do {
                try global.withClient { client in checks = try Self.checks(client: client) }
            } catch let failure as CLIFailure where failure.exitCode == 3 || failure.exitCode == 5 {
                checks.append(
                    .problem("daemon", failure.message, fix: failure.exitCode == 3 ? "start stenod (systemctl start stenod), or point steno at its socket" : "see above"))
                Self.show(DoctorReport(checks: checks), format: global.format)
                throw CLIFailure(message: "doctor: the daemon cannot be reached", exitCode: failure.exitCode)
            }
            let report = DoctorReport(checks: checks)
            Self.show(report, format: global.format)
            guard report.problems.isEmpty else {
                throw CLIFailure(message: "doctor found \(report.problems.count) problem(s)", exitCode: 1)
            }
        }
    }

    /// Every check the caller may run: the daemon's own (admins), then the accounts.
    static func checks(client: StenoClient) throws -> [DoctorCheck] {
        let status = try client.call(StenoMethods.systemStatus)
        var checks: [DoctorCheck] = [
            .ok("daemon", "stenod \(status.version) on \(status.socketPath), up \(Output.duration(seconds: status.uptimeSeconds))"),
            .ok("you", "uid \(status.caller.uid) → \(status.caller.user ?? "(no user)") (\(status.caller.role.rawValue))"),
        ]
        if status.caller.role == .admin {
            checks += try client.call(StenoMethods.systemDoctor).checks
        } else {
            checks.append(.ok("machine", "the checks of the daemon's machine need an admin; yours follow"))
        }
        let accounts = try client.call(StenoMethods.accountsList, AccountListParams(limit: 1000)).items
        let unhealthy = accounts.filter { $0.health != .ok && $0.health != .disabled }
        if unhealthy.isEmpty { checks.append(.ok("accounts", "\(accounts.count) healthy")) }
        for account in unhealthy {
            checks.append(
                .problem(
                    "account \(account.id)",
                    "\(account.provider.rawValue) \(account.name) of \(account.owner) is \(account.health.rawValue): \(account.lastError ?? "no error recorded")",
                    fix: fix(for: account)))
        }
        return checks
    }

    /// The command that brings an account back.
    static func fix(for account: AccountSummary) -> String {
        guard account.health == .needsCredentials else {
            return "correct the source (see the error), then: steno sync \(account.id) --wait"
        }
        switch account.provider {
        case .graph: return "steno accounts signin \(account.id)"
        case .device: return "pair the device again: steno devices pair --label NAME"
        case .caldav, .ics:
            if account.settings["token_url"] != nil {
                return "steno accounts update \(account.id) --bearer-token-file FILE --refresh-token-file FILE --wait"
            }
            return "steno accounts update \(account.id) --password-file FILE --wait"
        }
    }

    static func show(_ report: DoctorReport, format: OutputFormat) {
        var table = TableWriter(["CHECK", "STATUS", "DETAIL"])
        for check in report.checks { table.add([check.name, check.status.rawValue, check.detail]) }
        Output.print(Output.json(report), table: table, format: format)
        guard format.isHuman else { return }
        let problems = report.problems
        guard !problems.isEmpty else {
            Output.say("no problems found")
            return
        }
        Output.say("\n\(problems.count) problem(s):")
        for problem in problems {
            Output.say("- \(problem.name): \(problem.detail)\n  fix: \(problem.fix ?? "-")")
        }
    }
}
