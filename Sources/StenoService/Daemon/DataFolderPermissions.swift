#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging

/// Keeps the data folder private to the daemon's user: the folder 0700, the catalog (with its
/// `-wal` and `-shm`), the secrets key and backups 0600, whatever the umask it was started with.
///
/// The socket is where members are let in, method by method; anyone who can open the catalog
/// file reads every user's recordings and accounts around those rules. So a catalog or key
/// that other users may read or write is refused, not fixed silently: someone may have read
/// it already, and the operator should know.
enum DataFolderPermissions {
    /// The mode the data folder gets.
    static let folderMode: mode_t = 0o700
    /// The mode of every file the daemon writes there.
    static let fileMode: mode_t = 0o600

    /// Restricts the process's umask, so every file and folder it creates is its own alone;
    /// returns the umask it was started with (for the inbox, which members write to).
    static func restrictUmask() -> mode_t {
        umask(0o077)
    }

    /// Creates the data folder (0700) or narrows an existing one, and checks the files in it.
    ///
    /// - Parameters:
    ///   - databasePath: the SQLite catalog file; nil for a PostgreSQL catalog.
    ///   - socketGroup: the group given the socket (nil: the daemon's group); a data folder
    ///     open to that group is logged as an error before it is narrowed, since every member could read it.
    /// - Throws: ``DataFolderPermissionError`` naming the file, its mode and the `chmod` to run.
    static func secure(
        dataDirectory: String, databasePath: String?, keyPath: String, socketGroup: String?, logger: Logger
    ) throws(DataFolderPermissionError) {
        if !FileManager.default.fileExists(atPath: dataDirectory) {
            do {
                try FileManager.default.createDirectory(
                    atPath: dataDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: folderMode])
            } catch {
                throw .unusable(path: dataDirectory, reason: "it cannot be created: \(error.localizedDescription)")
            }
        }
        try narrowFolder(dataDirectory, socketGroup: socketGroup, logger: logger)
        if let databasePath {
            try refuseShared(databasePath, what: "the catalog", extra: [databasePath + "-wal", databasePath + "-shm"])
            for companion in [databasePath + "-wal", databasePath + "-shm"] {
                try narrowFile(companion, logger: logger)
            }
        }
        try refuseShared(keyPath, what: "the secrets key", extra: [])
    }

    /// Sets the data folder to 0700, saying loudly when the socket's group could read it.
    private static func narrowFolder(_ path: String, socketGroup: String?, logger: Logger) throws(DataFolderPermissionError) {
        var status = stat()
        guard stat(path, &status) == 0 else { throw .unusable(path: path, reason: String(cString: strerror(errno))) }
        guard status.st_mode & S_IFMT == S_IFDIR else { throw .unusable(path: path, reason: "it is not a folder") }
        let mode = status.st_mode & 0o777
        guard mode & 0o077 != 0 else { return }
        // Without socket_group the socket gets the daemon's own group.
        let socketGID: gid_t? = socketGroup == nil ? getegid() : socketGroup.flatMap(UnixSocketListener.groupID)
        if let socketGID, socketGID == status.st_gid, mode & 0o070 != 0 {
            logger.error(
                "the data folder was open to the socket's group: every member could read the catalog around the RPC rules; narrowing it to 0700. Give the data folder a group of its own (or none)",
                metadata: ["path": "\(path)", "mode": "\(octal(mode))", "group": "\(socketGroup ?? String(socketGID))"])
        } else {
            logger.warning(
                "the data folder was open to other users; narrowing it to 0700",
                metadata: ["path": "\(path)", "mode": "\(octal(mode))"])
        }
        guard chmod(path, folderMode) == 0 else {
            throw .shared(path: path, what: "the data folder", mode: mode, fix: "chmod 700 \(path)")
        }
    }

    /// Refuses a file other users may read or write; a missing file is fine (created 0600 later).
    private static func refuseShared(_ path: String, what: String, extra: [String]) throws(DataFolderPermissionError) {
        var status = stat()
        guard stat(path, &status) == 0 else { return }
        let mode = status.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            let present = [path] + extra.filter { FileManager.default.fileExists(atPath: $0) }
            throw .shared(path: path, what: what, mode: mode, fix: "chmod 600 " + present.joined(separator: " "))
        }
    }

    /// Sets a file the daemon owns (the catalog's `-wal`, `-shm`) to 0600 when it is wider.
    private static func narrowFile(_ path: String, logger: Logger) throws(DataFolderPermissionError) {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return }
        let mode = status.st_mode & 0o777
        guard mode & 0o077 != 0 else { return }
        logger.warning("narrowing a catalog file to 0600", metadata: ["path": "\(path)", "mode": "\(octal(mode))"])
        guard chmod(path, fileMode) == 0 else {
            throw .shared(path: path, what: "a catalog file", mode: mode, fix: "chmod 600 \(path)")
        }
    }

    static func octal(_ mode: mode_t) -> String {
        "0" + String(mode, radix: 8)
    }
}

/// Why the data folder is not private enough to start.
enum DataFolderPermissionError: Error, Sendable, CustomStringConvertible {
    /// A file others may read or write: its path, what it is, its mode, and the command that fixes it.
    case shared(path: String, what: String, mode: mode_t, fix: String)
    /// The folder cannot be created or examined.
    case unusable(path: String, reason: String)

    var description: String {
        switch self {
        case .shared(let path, let what, let mode, let fix):
            return "\(what) \(path) has mode \(DataFolderPermissions.octal(mode)): other users may read or change it, "
                + "bypassing every access rule of the socket. Run `\(fix)` (and check who read it meanwhile), then start stenod again"
        case .unusable(let path, let reason):
            return "the data folder \(path) is unusable: \(reason)"
        }
    }
}
