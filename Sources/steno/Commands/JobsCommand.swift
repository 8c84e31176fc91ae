import ArgumentParser
import Foundation
import StenoAPI
import StenoCore

/// `steno jobs …`: the durable job queue — what runs, what failed, what is dead.
struct JobsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jobs", abstract: "List, show, retry and cancel background jobs.",
        discussion: """
            Examples:
              steno jobs                              # the queue
              steno jobs --state dead --kind ingest   # what gave up, and why
              steno jobs retry 42                     # run job 42 again (admin)
            """,
        subcommands: [List.self, Show.self, Retry.self, Cancel.self], defaultSubcommand: List.self)

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List jobs, newest first.",
            discussion: """
                Examples:
                  steno jobs --state failed --kind calendar.sync   # syncs waiting to retry
                  steno jobs --reverse --tz UTC                    # oldest first, times in UTC
                """)
        @OptionGroup var global: GlobalOptions
        @OptionGroup var list: ListOptions
        @Option(name: .long, help: "Only jobs in this state: queued, running, succeeded, failed, dead or cancelled.")
        var state: JobState?
        @Option(name: .long, help: "Only jobs of this kind, e.g. system.noop.")
        var kind: String?
        @Flag(name: .long, help: "Oldest first.") var reverse = false

        func run() throws {
            try reportingFailures {
                try global.withClient { client in
                    let empty = { state == nil && kind == nil ? "no jobs yet" : "no jobs match" }
                    try list.write("jobs", format: global.format, table: JobsCommand.table, empty: empty) { cursor, size in
                        try client.send(StenoMethods.jobsList, JobListParams(state: state, kind: kind, newestFirst: !reverse, cursor: cursor, limit: size))
                    }
                }
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Show one job: payload, attempts, lease, last error, result.",
            discussion: """
                Examples:
                  steno jobs show 42   # payload, attempts, lease, last error, result
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The job's id.") var id: Int64

        func run() throws {
            try reportingFailures {
                let job = try global.withClient { try $0.call(StenoMethods.jobsGet, JobIDParams(id: id)) }
                Output.print(Output.json(job), table: JobsCommand.details(job), format: global.format)
            }
        }
    }

    struct Retry: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "retry",
            abstract: "Queue a dead, failed, cancelled or succeeded job again, now, with its attempts reset (admin).",
            discussion: """
                Examples:
                  steno jobs retry 42   # attempts reset, run now
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The job's id.") var id: Int64

        func run() throws {
            try reportingFailures {
                try JobsCommand.change(StenoMethods.jobsRetry, id: id, global: global, done: "queued again")
            }
        }
    }

    struct Cancel: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "cancel",
            abstract: "Cancel a queued or failed job (admin); a running job finishes or fails on its own.",
            discussion: """
                Examples:
                  steno jobs cancel 43
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The job's id.") var id: Int64

        func run() throws {
            try reportingFailures {
                try JobsCommand.change(StenoMethods.jobsCancel, id: id, global: global, done: "cancelled")
            }
        }
    }

    static func table(_ jobs: [Job]) -> TableWriter {
        var table = TableWriter(["ID", "KIND", "STATE", "ATTEMPTS", "RUN-AT", "LAST-ERROR"])
        for job in jobs {
            table.add([
                String(job.id), job.kind, job.state.rawValue, "\(job.attempts)/\(job.maxAttempts)", Output.date(job.runAt),
                job.lastError ?? "",
            ])
        }
        return table
    }

    static func details(_ job: Job) -> TableWriter {
        var table = TableWriter(["FIELD", "VALUE"])
        table.add(["id", String(job.id)])
        table.add(["kind", job.kind])
        table.add(["state", job.state.rawValue])
        table.add(["priority", String(job.priority)])
        table.add(["attempts", "\(job.attempts) of \(job.maxAttempts)"])
        table.add(["run at", Output.date(job.runAt)])
        if let key = job.uniqueKey { table.add(["unique key", key]) }
        if let owner = job.leaseOwner { table.add(["lease owner", owner]) }
        if let expires = job.leaseExpiresAt { table.add(["lease expires", Output.date(expires)]) }
        table.add(["payload", job.payload])
        if let progress = job.progress { table.add(["progress", progress]) }
        if let error = job.lastError { table.add(["last error", error]) }
        if let result = job.result { table.add(["result", result]) }
        table.add(["created", Output.date(job.createdAt)])
        table.add(["updated", Output.date(job.updatedAt)])
        if let finished = job.finishedAt { table.add(["finished", Output.date(finished)]) }
        return table
    }

    /// Calls a method that changes one job and reports the job as it now is.
    static func change(
        _ method: RPCMethodDescriptor<JobIDParams, Job>, id: Int64, global: GlobalOptions, done: String
    ) throws {
        let job = try global.withClient { try $0.call(method, JobIDParams(id: id)) }
        if global.format.isHuman {
            Output.say("job \(job.id) (\(job.kind)) \(done)")
        } else {
            Output.print(Output.json(job), table: table([job]), format: global.format)
        }
    }
}

extension JobState: ExpressibleByArgument {}
