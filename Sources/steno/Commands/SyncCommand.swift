import ArgumentParser
import Foundation
import StenoAPI
import StenoCore

/// `steno sync [ACCOUNT] [--wait]`: sync calendar accounts now.
struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync", abstract: "Sync calendar accounts now (all of yours, or one), ahead of the schedule.",
        discussion: """
            Examples:
              steno sync --wait     # every account you may sync, and what changed
              steno sync 2 --wait   # only account 2
            """)
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The account's id; all accounts you may sync when absent.") var account: Int64?
    @Flag(name: .long, help: "Wait until the syncs finish; show progress and what changed.") var wait = false
    @Option(name: .long, help: "With --wait: give up after this many seconds.") var timeout: Double = 600

    func run() throws {
        try reportingFailures {
            try global.withClient { client in
                let result = try client.call(StenoMethods.accountsSync, AccountSyncParams(id: account))
                guard wait else {
                    Output.done(result, "queued \(result.jobs.count) sync(s); follow with: steno accounts list", format: global.format)
                    return
                }
                let finished = try JobWaiting.wait(
                    for: result.jobs.map(\.jobID), label: "syncing", what: "sync(s)", timeout: timeout, client: client)
                let jobs = result.jobs.compactMap { finished[$0.jobID] }
                if global.format.isHuman {
                    Self.printSummary(jobs)
                } else {
                    Output.print(Output.json(jobs), table: TableWriter([]), format: global.format)
                }
                try JobWaiting.requireSuccess(Self.failures(jobs), saying: { "\($0) sync(s) failed; see steno accounts list" })
            }
        }
    }

    /// The syncs that did not succeed, as "account ID STATE: last error".
    static func failures(_ jobs: [Job]) -> [String] {
        jobs.filter { $0.state != .succeeded }.map { job in
            let account = (try? JSONValue.parse(job.payload))?["account"]?.intValue.map(String.init) ?? "?"
            return "account \(account) \(job.state.rawValue)" + (job.lastError.map { ": \($0)" } ?? "")
        }
    }

    /// One line per finished sync job: what changed, or why it failed.
    static func printSummary(_ jobs: [Job]) {
        var table = TableWriter(["ACCOUNT", "RESULT", "CALENDARS", "NEW", "CHANGED", "DELETED", "UNCHANGED", "DETAIL"])
        for job in jobs {
            let payload = try? JSONValue.parse(job.payload)
            let account = payload?["account"]?.intValue.map(String.init) ?? "?"
            let result = job.result.flatMap { try? JSONValue.parse($0) }
            func count(_ key: String) -> String { result?[key]?.intValue.map(String.init) ?? "-" }
            table.add([
                account, job.state == .succeeded ? "ok" : job.state.rawValue, count("calendars"), count("inserted"), count("updated"),
                count("deleted"), count("unchanged"), job.state == .succeeded ? "" : job.lastError ?? "",
            ])
        }
        Output.sayTable(table)
    }
}
