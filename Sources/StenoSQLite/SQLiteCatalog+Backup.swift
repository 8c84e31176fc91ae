#if canImport(Glibc)
import Glibc
#endif
import Foundation
import GRDB
import StenoCatalog

extension SQLiteCatalog {
    public func backup(to path: String) async throws -> Int64 {
        guard path.hasPrefix("/") else {
            throw StoreError.invalid("the backup path must be absolute: \(path)")
        }
        let directory = (path as NSString).deletingLastPathComponent
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw StoreError.failedPrecondition("the folder \(directory) does not exist")
        }
        try Self.createPrivateFile(path)
        do {
            // The backup runs on a reader in one step, inside a read transaction of the WAL pool:
            // a consistent snapshot, and writers keep going meanwhile.
            let destination = try DatabaseQueue(path: path)
            try writer.backup(to: destination)
            try destination.close()
        } catch {
            unlink(path)
            throw error
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.size] as? NSNumber)?.int64Value ?? 0
    }

    /// Creates the empty backup file, 0600 whatever the umask: a copy of the catalog is as
    /// private as the catalog.
    ///
    /// `O_CREAT | O_EXCL` never follows a symbolic link, dangling or not, and never opens a file
    /// that exists: the daemon writes as its own user, so a link planted at the target would
    /// make it create or overwrite a file wherever the link points.
    static func createPrivateFile(_ path: String) throws {
        let descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            if errno == EEXIST {
                var status = stat()
                let isLink = lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFLNK
                throw StoreError.failedPrecondition(
                    isLink
                        ? "\(path) is a symbolic link; backups are written to a new plain file only, choose another name"
                        : "\(path) exists already; choose a new file name")
            }
            throw StoreError.failedPrecondition("cannot create \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        guard fchmod(descriptor, 0o600) == 0 else {
            unlink(path)
            throw StoreError.failedPrecondition("cannot make \(path) private: \(String(cString: strerror(errno)))")
        }
    }
}
