import ArgumentParser

/// `steno-bench`: performance checks that print figures and ratios against a baseline
/// measured in the same run (never a timed unit test).
@main
struct StenoBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "steno-bench",
        abstract: "Steno's benchmarks. Run in release: swift run -c release steno-bench <name>.",
        subcommands: [
            RPCBenchmark.self, IngestBenchmark.self, LinkBenchmark.self, CalDAVBenchmark.self, GraphBenchmark.self, DeviceBenchmark.self, QueueBenchmark.self,
            GraphSlotsBenchmark.self, QueryBenchmark.self, ListenBenchmark.self, RetentionBenchmark.self,
        ]
    )
}
