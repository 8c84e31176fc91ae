#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Old catalog copies beside a new one, removed: a backup keeps what was deleted after it was
/// taken (recordings, names) until the backup itself goes, so rotating them bounds how long
/// deleted data lives on.
enum BackupRotation {
    /// Removes the SQLite databases in `newBackup`'s folder last written before `cutoff`: plain
    /// files only (never a symbolic link, a folder, a `-wal`/`-shm`/`-journal` file), never
    /// `newBackup` nor any of `sparing` (the live catalog). Returns what went, ascending; a file
    /// that cannot be removed is named in `failures`.
    static func prune(beside newBackup: String, before cutoff: Date, sparing: Set<String>) throws -> (pruned: [String], failures: [String]) {
        let folder = (newBackup as NSString).deletingLastPathComponent
        let spared = Set(([newBackup] + sparing).map { resolved($0) ?? $0 })
        var pruned: [String] = []
        var failures: [String] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        where !["-wal", "-shm", "-journal"].contains(where: { name.hasSuffix($0) }) {
            let path = folder + "/" + name
            var status = stat()
            guard lstat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG,
                Double(status.st_mtim.tv_sec) < cutoff.timeIntervalSince1970,
                !spared.contains(resolved(path) ?? path), isSQLiteDatabase(path)
            else { continue }
            if unlink(path) == 0 {
                pruned.append(path)
            } else {
                failures.append("\(path): \(String(cString: strerror(errno)))")
            }
        }
        return (pruned, failures)
    }

    /// Whether the file at `path` starts as every SQLite database does.
    static func isSQLiteDatabase(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 16)) == Data("SQLite format 3\0".utf8)
    }

    private static func resolved(_ path: String) -> String? {
        guard let pointer = realpath(path, nil) else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }
}
