#if canImport(Glibc)
import Glibc
#endif
import Foundation
import GRDB
import StenoAPI
import StenoTesting

/// An inbox holding every recording the catalog says is present, as sparse files of the
/// catalogued size and modification time, so that a daemon started on the catalog finds its
/// inbox as it left it.
///
/// Without it the daemon's start-up rescan finds none of the catalog's files and queues an
/// ingest job for each batch of them, marking every recording gone while the CLI cases are
/// timed (and changing the rows they list). No setting turns that reconciliation off; a
/// matching inbox is what a real deployment has, and it costs no disk (the files are holes).
struct MirroredInbox {
    /// The inbox folder.
    let path: String
    /// Files written.
    let files: Int

    /// Writes the catalog's present recording paths under a new temporary folder.
    static func make(of catalog: DatabasePool) throws -> MirroredInbox {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("steno-bench-inbox-\(UUID().uuidString)").path
        let paths = try catalog.read { db in
            try Row.fetchAll(db, sql: "SELECT path, size, mtime FROM recording_paths WHERE is_present = 1").map {
                (path: $0["path"] as String, size: $0["size"] as Int64, milliseconds: $0["mtime"] as Int64)
            }
        }
        var folders: Set<String> = []
        for file in paths {
            let full = root + "/" + file.path
            let folder = (full as NSString).deletingLastPathComponent
            if folders.insert(folder).inserted {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            }
            try writeSparse(full, size: file.size, modifiedMilliseconds: file.milliseconds)
        }
        return MirroredInbox(path: root, files: paths.count)
    }

    /// A file of `size` bytes (a hole) with its mtime set to the catalogued one.
    private static func writeSparse(_ path: String, size: Int64, modifiedMilliseconds: Int64) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw QueryBenchError.failed("cannot create \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let milliseconds = Int(modifiedMilliseconds)
        var times = [
            timespec(tv_sec: milliseconds / 1000, tv_nsec: milliseconds % 1000 * 1_000_000),
            timespec(tv_sec: milliseconds / 1000, tv_nsec: milliseconds % 1000 * 1_000_000),
        ]
        guard ftruncate(fd, off_t(size)) == 0, futimens(fd, &times) == 0 else {
            throw QueryBenchError.failed("cannot size or date \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Waits until `daemon` has compared its inbox with the catalog (its watcher logs
    /// "watching <inbox>" after the first scan has queued what it found) and its job queue is
    /// empty, so that no ingest runs while the cases are timed; fails when either takes longer
    /// than `timeout` seconds.
    func waitUntilReconciled(_ daemon: TestDaemon, timeout: TimeInterval = 600) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !daemon.log.contains("watching \(path)") {
            guard Date() < deadline else { throw QueryBenchError.failed("stenod did not finish scanning \(path) within \(Int(timeout)) s") }
            usleep(50_000)
        }
        let client = try daemon.client()
        while true {
            let depth = try client.call(StenoMethods.systemStatus).queueDepth
            if depth == 0 { return }
            guard Date() < deadline else {
                throw QueryBenchError.failed("stenod still has \(depth) job(s) queued or running after \(Int(timeout)) s: the CLI cases would time them")
            }
            usleep(100_000)
        }
    }

    /// Removes the folder.
    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
