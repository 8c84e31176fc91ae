import ArgumentParser
import Foundation
import Logging
import StenoCatalog
import StenoPostgres
import StenoTesting

/// `steno-bench graph-slots`: what holding Microsoft Graph's per-mailbox request slots in a
/// shared PostgreSQL catalog costs. A slot is one lease taken and given back (two statements);
/// a daemon keeps a freed slot for its next request, so a sync reading page after page pays
/// that once per run of pages, not per request. The baseline is the cheapest catalog read
/// (one round trip), measured in the same run on the same private cluster.
struct GraphSlotsBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "graph-slots",
        abstract: "Cost of a Graph mailbox slot lease on PostgreSQL, against one catalog round trip (target: < 3 round trips per slot).")

    @Option(help: "Slots taken and given back (and baseline reads).") var iterations = 2000
    @Option(help: "Graph requests a slot serves while kept (pages of one sync round).") var pagesPerSlot = 10

    func run() async throws {
        guard PostgresCluster.isInstalled else { throw ValidationError("PostgreSQL is not installed (apt-get install postgresql)") }
        let cluster = try await PostgresCluster.shared()
        let settings = try PostgresSettings.parse(url: cluster.socketURL(database: try await cluster.createDatabase()))
        let catalog = try await PostgresCatalog.open(settings, logger: Logger(label: "steno.bench.postgres"))
        defer { catalog.close() }
        let count = max(1, iterations)
        // Warm the pool and the statements.
        for _ in 0..<50 { _ = try await catalog.deviceSignIn(id: "none") }

        let clock = ContinuousClock()
        let baseline = try await clock.measure {
            for _ in 0..<count { _ = try await catalog.deviceSignIn(id: "none") }
        }
        let slots = try await clock.measure {
            for index in 0..<count {
                let name = "graph-mailbox:bench/user\(index % 50)@contoso.com#\(index % 4)"
                guard try await catalog.acquireLease(name, holder: "bench/1", duration: .seconds(20), now: Date()) else {
                    throw ValidationError("slot \(name) was not free")
                }
                try await catalog.releaseLease(name, holder: "bench/1")
            }
        }
        let roundTrip = baseline.seconds / Double(count)
        let slot = slots.seconds / Double(count)
        let perRequest = slot / Double(max(1, pagesPerSlot))
        print(String(format: "catalog round trip (baseline):   %8.3f ms", roundTrip * 1000))
        print(String(format: "slot taken and given back:       %8.3f ms  (%.2f round trips)", slot * 1000, slot / roundTrip))
        print(String(format: "per Graph request, %3d per slot: %8.3f ms  (%.2f round trips)", pagesPerSlot, perRequest * 1000, perRequest / roundTrip))
    }
}
