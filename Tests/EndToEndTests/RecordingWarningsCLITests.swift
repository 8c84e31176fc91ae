import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// A file cut short is catalogued at the length it holds, with a warning that
/// `steno recordings --warnings` lists and `steno recordings show` prints.
@Suite("steno recordings --warnings", .blocksThreads)
struct RecordingWarningsCLITests {
    @Test func cutFileIsListedWithItsWarningAndShownWithIt() throws {
        let daemon = try TestDaemon(config: RecordingsCLITests.config)
        defer { daemon.shutdown() }
        _ = try daemon.client().call(StenoMethods.usersAdd, UserAddParams(name: "alice"))
        let alice = daemon.inboxDirectory + "/alice"
        try FileManager.default.createDirectory(atPath: alice, withIntermediateDirectories: true)
        // Header: 4000 samples (0.5 s); the file holds half of them.
        let whole = IngestionEndToEndTests.wav(seed: 4)
        try whole.prefix(44 + 4000).write(to: URL(fileURLWithPath: alice + "/cut.wav"))
        try IngestionEndToEndTests.wav(seed: 1).write(to: URL(fileURLWithPath: alice + "/whole.wav"))
        let ingest = try steno(daemon, ["ingest", alice, "--wait", "--timeout", "60"])
        #expect(ingest.status == 0, "\(ingest.stdout)\(ingest.stderr)")

        let warned = try RecordingsCLITests.listed(daemon, ["--warnings"])
        #expect(warned.compactMap { $0.paths.first?.path } == ["alice/cut.wav"])
        let cut = try #require(warned.first)
        #expect(cut.status == .ready)
        #expect(cut.duration == 0.25)
        #expect(cut.warnings.first?.hasPrefix("truncated: header says 0.5 s, data holds 0.2") == true, "\(cut.warnings)")
        #expect(try RecordingsCLITests.listed(daemon, []).count == 2)

        let table = try steno(daemon, ["recordings", "--warnings"])
        #expect(table.status == 0)
        #expect(table.stdout.contains("alice") && table.stdout.contains("truncated: header says 0.5 s"), "\(table.stdout)")
        let show = try steno(daemon, ["recordings", "show", String(cut.id)])
        #expect(show.status == 0)
        #expect(show.stdout.contains("warning") && show.stdout.contains("truncated: header says 0.5 s"), "\(show.stdout)")
    }
}
