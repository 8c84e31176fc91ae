#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Foundation
import StenoAPI
import StenoCatalog
import StenoCore
import StenoSQLite
import StenoTesting

/// `steno-bench listen`: `recordings.open` against a real stenod on a large catalog, and
/// `steno recordings export -o -` against `cat` of the same file in the same run.
struct ListenBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "listen",
        abstract: "Time to the descriptor of recordings.open on a catalog of N recordings (target p99 < 5 ms) and export throughput against cat of the same file (target ≥ 80 %).")

    @Option(help: "Recordings in the catalog.") var recordings = 100_000
    @Option(help: "Size of the exported file in MiB.") var megabytes = 512
    @Option(help: "recordings.open calls timed.") var runs = 2000
    @Option(help: "Exports (and cats) timed.") var exports = 5

    func run() async throws {
        let daemon = try TestDaemon(config: "log_level = \"warning\"\n")
        defer { daemon.shutdown() }
        daemon.stop()
        let id = try await makeCatalog(daemon)
        try daemon.start(timeout: 120)
        let client = try daemon.client()
        // The startup rescan finds the generated paths missing; measure once it is done with them.
        for _ in 0..<6_000 where try client.call(StenoMethods.systemStatus).queueDepth > 0 { usleep(50_000) }

        for _ in 0..<50 { close(try client.callReceivingDescriptor(StenoMethods.recordingsOpen, RecordingReferenceParams(id: id)).descriptor) }
        var times: [Duration] = []
        times.reserveCapacity(runs)
        for _ in 0..<runs {
            let start = ContinuousClock.now
            let descriptor = try client.callReceivingDescriptor(StenoMethods.recordingsOpen, RecordingReferenceParams(id: id)).descriptor
            times.append(ContinuousClock.now - start)
            close(descriptor)
        }
        times.sort()
        let p50 = Self.milliseconds(times[times.count / 2]), p99 = Self.milliseconds(times[min(times.count - 1, times.count * 99 / 100)])
        print(String(format: "recordings.open on %d recordings, %d calls: p50 %.2f ms, p99 %.2f ms (target p99 < 5 ms)", recordings, runs, p50, p99))

        let steno = try TestDaemon.executable(named: "steno")
        let file = daemon.inboxDirectory + "/alice/listen.wav"
        var exported: [Duration] = [], catted: [Duration] = []
        _ = try TimedCommand.run("/bin/cat", [file])  // both read from the page cache
        for _ in 0..<exports {
            exported.append(try TimedCommand.run(steno, ["--socket", daemon.socketPath, "recordings", "export", String(id), "-o", "-"], removing: ["STENO_SOCKET"]))
            catted.append(try TimedCommand.run("/bin/cat", [file]))
        }
        let export = Self.milliseconds(exported.sorted()[exports / 2]), cat = Self.milliseconds(catted.sorted()[exports / 2])
        let megabytesPerSecond = { (ms: Double) in Double(megabytes) / (ms / 1000) }
        let ratio = cat / export
        print(String(format: "export of %d MiB to a pipe: %.0f ms (%.0f MiB/s); cat %.0f ms (%.0f MiB/s): %.0f %% of cat (target ≥ 80 %%)",
                     megabytes, export, megabytesPerSecond(export), cat, megabytesPerSecond(cat), ratio * 100))
        let pass = p99 < 5 && ratio >= 0.8
        print(pass ? "PASS" : "FAIL")
        if !pass { throw ExitCode(1) }
    }

    /// Fills the stopped daemon's catalog with `recordings` generated rows and one real file of
    /// `megabytes` in alice's folder; returns the real one's id.
    func makeCatalog(_ daemon: TestDaemon) async throws -> Int64 {
        let folder = daemon.inboxDirectory + "/alice"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/listen.wav"
        let descriptor = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0o644)
        guard descriptor >= 0, posix_fallocate(descriptor, 0, off_t(megabytes) << 20) == 0 else {
            throw ValidationError("cannot make \(path): \(String(cString: strerror(errno)))")
        }
        close(descriptor)
        var info = stat()
        guard stat(path, &info) == 0 else { throw ValidationError("cannot stat \(path)") }
        let modified = Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)

        let catalog = try await SQLiteCatalog.open(path: daemon.dataDirectory + "/catalog.sqlite")
        let alice = try await catalog.addUser(UserDraft(name: "alice", emails: ["alice@bench.example"], uids: [getuid()], role: .admin))
        let started = ContinuousClock.now
        let start = Date(timeIntervalSince1970: 1_780_000_000)
        for number in 0..<recordings {
            _ = try await catalog.recordIngest(
                IngestRecord(
                    path: "alice/generated/r\(number).wav", size: 1, modified: start, contentHash: "hash-\(number)", ownerID: alice.id,
                    outcome: .ready(RecordingMetadata(format: "wav", codec: "pcm_s16le", duration: 600, recordedAt: start.addingTimeInterval(Double(number) * 900), recordedAtSource: .sidecar))))
        }
        let real = try await catalog.recordIngest(
            IngestRecord(
                path: "alice/listen.wav", size: Int64(info.st_size), modified: modified, contentHash: "listen", ownerID: alice.id,
                outcome: .ready(RecordingMetadata(format: "wav", codec: "pcm_s16le", duration: 600, recordedAt: start, recordedAtSource: .sidecar))))
        print(String(format: "catalog of %d recordings made in %.1f s", recordings + 1, Self.milliseconds(ContinuousClock.now - started) / 1000))
        return real.id
    }

    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }
}
