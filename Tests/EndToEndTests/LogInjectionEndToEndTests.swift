import Foundation
import StenoAPI
import StenoTesting
import StenoTestTraits
import Testing

/// A name a user chose cannot write a line of the daemon's log.
@Suite("Log lines cannot be forged", .blocksThreads, .serialized)
struct LogInjectionEndToEndTests {
    @Test func aFileNameWithANewlineStaysOnItsLine() throws {
        let daemon = try TestDaemon(config: "log_format = \"text\"\n")
        defer { daemon.shutdown() }
        _ = try daemon.client().call(StenoMethods.usersAdd, UserAddParams(name: "alice"))
        let inbox = daemon.inboxDirectory + "/alice"
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        // Not audio: it fails, and its path is logged.
        let name = "bad\nFORGED CRITICAL stenod: admin password reset key=value\r.wav"
        try Data("not audio".utf8).write(to: URL(fileURLWithPath: inbox + "/" + name))

        let log = try poll(timeout: 30, { daemon.log }, until: { $0.contains("recording failed") })
        let failure = try #require(log.split(separator: "\n").first { $0.contains("recording failed") }, "\(log)")
        #expect(failure.contains(#"path="alice/bad\nFORGED CRITICAL stenod: admin password reset key=value\r.wav""#), "\(failure)")
        #expect(!log.split(separator: "\n").contains { $0.hasPrefix("FORGED") }, "\(log)")
        #expect(!log.contains("\r"))
    }
}
