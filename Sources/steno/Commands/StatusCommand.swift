import ArgumentParser
import StenoAPI

/// `steno status`: is the daemon up, what does it hold, who am I to it.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show the daemon's state: uptime, schema, database, device agent listener, counts, queue.",
        discussion: """
            Examples:
              steno status          # version, uptime, catalog, row counts, queue, who you are
              steno status --json   # the same, for a script
            """)

    @OptionGroup var global: GlobalOptions

    func run() throws {
        try reportingFailures {
            let status = try global.withClient { try $0.call(StenoMethods.systemStatus) }
            var table = TableWriter(["FIELD", "VALUE"])
            table.add(["version", status.version])
            table.add(["uptime", Output.duration(seconds: status.uptimeSeconds)])
            table.add(["schema", String(status.schemaVersion)])
            table.add(["database", status.databasePath])
            table.add(["socket", status.socketPath])
            table.add(["inbox", status.inboxPath])
            if let listener = status.deviceAgent { table.add(["device agent", listener]) }
            table.add(["you", "uid \(status.caller.uid) → \(status.caller.user ?? "(no user)") (\(status.caller.role.rawValue))"])
            table.add(["queue", String(status.queueDepth)])
            for (name, count) in status.counts.sorted(by: { $0.key < $1.key }) {
                table.add([name, String(count)])
            }
            Output.print(Output.json(status), table: table, format: global.format)
        }
    }
}
