import ArgumentParser
import Foundation
import StenoAPI
import StenoTesting
import NIOCore

/// `steno-bench rpc`: `system.status` round trips against a real stenod, beside a raw
/// Unix-socket echo server answering frames of the same sizes, in the same run.
struct RPCBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rpc",
        abstract: "JSON-RPC throughput and latency of system.status vs. a raw Unix-socket echo (target: ≥30% of echo at 32 clients, p99 < 2 ms).")

    @Option(help: "Seconds per measurement.") var seconds: Double = 3
    @Option(help: "Client counts to measure.") var clients: [Int] = [1, 32]
    @Option(help: "The daemon's event-loop threads (0: one per core).") var daemonThreads = 0

    func run() throws {
        let daemon = try TestDaemon(config: "[rpc]\nthreads = \(daemonThreads)\n")
        defer { daemon.shutdown() }
        let request = RPCRequest(id: .int(1), method: StenoMethods.systemStatus.name).json.serializedBytes + [10]
        guard let probe = BlockingLineSocket(path: daemon.socketPath), let replySize = probe.roundTrip(request) else {
            throw TestDaemonError("the daemon did not answer system.status:\n\(daemon.log)")
        }
        let echoPath = daemon.root + "/echo.sock"
        let echo = try EchoServer(path: echoPath, reply: [UInt8](repeating: UInt8(ascii: "x"), count: replySize), threads: System.coreCount)
        defer { echo.stop() }

        print("steno-bench rpc: system.status (request \(request.count - 1) B, reply \(replySize) B), \(seconds) s per run, \(System.coreCount) cores")
        print("")
        let header = ["clients", "server", "round trips/s", "p50 µs", "p99 µs", "vs echo"]
        print(header.map { $0.padding(toLength: 14, withPad: " ", startingAt: 0) }.joined())
        var verdicts: [String] = []
        for count in clients {
            let baseline = LoadGenerator.run(path: echoPath, frame: request, clients: count, seconds: seconds)
            let steno = LoadGenerator.run(path: daemon.socketPath, frame: request, clients: count, seconds: seconds)
            let ratio = steno.throughput / baseline.throughput
            for (name, result, share) in [("echo", baseline, "100%"), ("stenod", steno, String(format: "%.0f%%", ratio * 100))] {
                let cells = [
                    String(count), name, String(format: "%.0f", result.throughput),
                    String(format: "%.0f", result.p50Microseconds), String(format: "%.0f", result.p99Microseconds), share,
                ]
                print(cells.map { $0.padding(toLength: 14, withPad: " ", startingAt: 0) }.joined())
                if result.failures > 0 { print("  (\(result.failures) failed connections)") }
            }
            if count == 32 {
                let ok = ratio >= 0.30 && steno.p99Microseconds < 2000
                verdicts.append(String(format: "32 clients: %.0f%% of echo (target ≥30%%), p99 %.2f ms (target < 2 ms): %@",
                                       ratio * 100, steno.p99Microseconds / 1000, ok ? "PASS" : "FAIL"))
            }
        }
        print("")
        verdicts.forEach { print($0) }
    }
}
