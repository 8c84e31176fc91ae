#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// A file whose name is not UTF-8 becomes a recording under its escaped name, whether the
/// watcher finds it or `steno ingest` is asked to read its folder.
@Suite("Non-UTF-8 names end to end", .blocksThreads, .serialized)
struct NonUTF8NamesEndToEndTests {
    /// Writes `data` to `folder/` + `name` bytes.
    static func write(_ data: Data, in folder: String, name: [UInt8]) throws {
        let path = Array((folder + "/").utf8) + name
        let fd = open(path.map { CChar(bitPattern: $0) } + [0], O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw TestDaemonError("cannot create the file: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        guard data.withUnsafeBytes({ Glibc.write(fd, $0.baseAddress, $0.count) }) == data.count else { throw TestDaemonError("short write") }
    }

    @Test func aNameWithByte0xFFIsCataloguedByTheWatcherAndByStenoIngest() throws {
        let daemon = try TestDaemon(config: IngestionEndToEndTests.config)
        defer { daemon.shutdown() }
        _ = try daemon.client().call(StenoMethods.usersAdd, UserAddParams(name: "alice"))
        let alice = daemon.inboxDirectory + "/alice"
        try FileManager.default.createDirectory(atPath: alice, withIntermediateDirectories: true)
        try Self.write(IngestionEndToEndTests.wav(seed: 7), in: alice, name: Array("watched-".utf8) + [0xFF] + Array(".wav".utf8))

        let watched = try IngestionEndToEndTests.waitForRecordings(daemon, timeout: 30) { !$0.isEmpty }
        #expect(watched.first?.paths.map(\.path) == ["alice/watched-\\xFF.wav"])
        #expect(watched.first?.status == .ready)

        try Self.write(IngestionEndToEndTests.wav(seed: 8), in: alice, name: Array("asked-".utf8) + [0xFE] + Array(".wav".utf8))
        let ingest = try steno(daemon, ["ingest", alice, "--wait", "--timeout", "60"])
        #expect(ingest.status == 0, "\(ingest.stdout)\(ingest.stderr)")
        #expect(!ingest.stdout.contains("gone"), "\(ingest.stdout)")
        let all = try IngestionEndToEndTests.waitForRecordings(daemon, timeout: 30) { $0.count == 2 }
        #expect(Set(all.flatMap { $0.paths.map(\.path) }) == ["alice/watched-\\xFF.wav", "alice/asked-\\xFE.wav"])
        #expect(all.allSatisfy { $0.status == .ready })
    }
}
