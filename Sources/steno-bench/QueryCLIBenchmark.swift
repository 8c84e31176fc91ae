import Foundation
import GRDB
import StenoAPI
import StenoTesting

/// The full listings of `steno-bench query` through the real programs: a `stenod` serving the
/// working catalog and `steno … --all` writing JSON or CSV to a pipe, timed from spawn to
/// exit (what a user or a script waits for, see `TimedCommand`), beside the same rows read by
/// the floor. The rows printed are checked on an untimed run first.
struct QueryCLICase {
    var name: String
    var arguments: [String]
    var floor: QueryCase.Floor

    /// `steno meetings --with … --all` and `steno recordings --all` (a range) in JSON and CSV.
    static func all(colleague: String, from: Date, to: Date, recordingsTo: Date) -> [QueryCLICase] {
        let day = ISO8601DateFormatter()
        var cases: [QueryCLICase] = []
        for format in ["json", "csv"] {
            cases.append(QueryCLICase(
                name: "CLI meetings --with --all -o \(format)", arguments: ["meetings", "--with", colleague, "--all", "-o", format],
                floor: .meetings))
            cases.append(QueryCLICase(
                name: "CLI meetings range --all -o \(format)",
                arguments: ["meetings", "--from", day.string(from: from), "--to", day.string(from: to), "--all", "-o", format], floor: .meetings))
        }
        cases.append(QueryCLICase(
            name: "CLI recordings range --all -o json",
            arguments: ["recordings", "--from", day.string(from: from), "--to", day.string(from: recordingsTo), "--all", "-o", "json"],
            floor: .recordings))
        return cases
    }

    /// Starts a daemon on `catalog` (admin: the benchmark runs as root) with an inbox that
    /// matches it, waits until it has nothing to ingest, runs every case.
    static func measure(_ cases: [QueryCLICase], catalog: String, floor: DatabasePool, runs: Int) throws -> [QueryCase.Result] {
        guard !cases.isEmpty else { return [] }
        let inbox = try MirroredInbox.make(of: floor)
        defer { inbox.remove() }
        let daemon = try TestDaemon(config: "database = \"\(catalog)\"\n[watcher]\nsettle_seconds = 3600\n", inbox: inbox.path)
        defer { daemon.shutdown() }
        try inbox.waitUntilReconciled(daemon)
        let steno = try TestDaemon.executable(named: "steno")
        var results: [QueryCase.Result] = []
        for queryCase in cases {
            let output = try run(steno, ["--socket", daemon.socketPath] + queryCase.arguments)
            let ids = try ids(in: output, csv: queryCase.arguments.last == "csv")
            let measured = QueryCase(name: queryCase.name, isFullListing: true, floor: queryCase.floor, call: { _, _ in [] }, ids: { _ in [] })
            var times: [Double] = []
            var floorTimes: [Double] = []
            for _ in 0..<max(1, runs) {
                times.append(QueryCase.seconds(try TimedCommand.run(steno, ["--socket", daemon.socketPath] + queryCase.arguments, removing: ["STENO_SOCKET"])))
                let floorStart = ContinuousClock.now
                _ = try measured.readFloor(floor, ids: ids)
                floorTimes.append(QueryCase.seconds(ContinuousClock.now - floorStart))
            }
            let result = QueryCase.Result(
                name: queryCase.name, user: "admin", isFullListing: true, rows: ids.count, p50: QueryCase.percentile(times, 0.5),
                p99: QueryCase.percentile(times, 0.99), floorP50: QueryCase.percentile(floorTimes, 0.5),
                floorP99: QueryCase.percentile(floorTimes, 0.99))
            print(result.line)
            results.append(result)
        }
        return results
    }

    /// Runs `steno` to its end, its output read through a pipe as a script would.
    static func run(_ steno: String, _ arguments: [String]) throws -> Data {
        let result = try ProcessRunner.run(steno, arguments, removing: ["STENO_SOCKET"], timeout: 600)
        guard result.status == 0 else { throw QueryBenchError.failed("steno \(arguments.joined(separator: " ")): \(result)") }
        return Data(result.stdout.utf8)
    }

    /// The ids of the rows printed: the first column of CSV, `id` of JSON objects.
    static func ids(in output: Data, csv: Bool) throws -> [Int64] {
        if csv {
            return String(decoding: output, as: UTF8.self).split(separator: "\n").dropFirst().compactMap {
                $0.split(separator: ",", maxSplits: 1).first.flatMap { Int64($0) }
            }
        }
        return try JSONValue.parse(Array(output)).arrayValue?.compactMap { $0["id"]?.intValue } ?? []
    }
}
