#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StenoAPI

/// Prepares the socket path before binding: creates its folder, replaces a stale socket
/// file left by a crashed daemon, and refuses to start beside a live one.
enum UnixSocketListener {
    /// Why the socket path cannot be used.
    struct Unusable: Error, CustomStringConvertible {
        var description: String
    }

    static func preparePath(_ path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        if !FileManager.default.fileExists(atPath: directory) {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        }
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard (info.st_mode & S_IFMT) == S_IFSOCK else {
            throw Unusable(description: "\(path) exists and is not a socket; remove it or choose another socket path")
        }
        if isAcceptingConnections(path) {
            throw Unusable(description: "another stenod is already listening on \(path); stop it first or use another --socket")
        }
        // Nobody listens: the file is left over from a daemon that did not exit cleanly.
        guard unlink(path) == 0 || errno == ENOENT else {
            throw Unusable(description: "cannot remove the stale socket \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Whether something accepts connections on the socket.
    static func isAcceptingConnections(_ path: String) -> Bool {
        guard let fd = try? UnixDomainSocket.connect(path: path) else { return false }
        close(fd)
        return true
    }

    /// Where the socket is bound before it has its mode: beside `path`, so that renaming it
    /// into place is atomic. A client never finds the socket at `path` before members may use
    /// it (bound there directly, it answered for a moment with the daemon's umask, 0700).
    static func stagingPath(for path: String) throws -> String {
        let staging = path + "~"
        let capacity = UnixDomainSocket.pathCapacity
        guard staging.utf8.count < capacity else {
            throw Unusable(description: "the socket path \(path) is too long: at most \(capacity - 2) bytes")
        }
        // Left by a daemon stopped between binding and renaming.
        guard unlink(staging) == 0 || errno == ENOENT else {
            throw Unusable(description: "cannot remove \(staging): \(String(cString: strerror(errno)))")
        }
        return staging
    }

    /// Gives the socket bound at `staging` its mode and, if configured, its group, then puts
    /// it at `path`; errors name `path`, the socket the user configured.
    static func publish(_ staging: String, at path: String, mode: UInt32, group: String?) throws {
        if let group {
            guard let gid = groupID(group) else {
                throw Unusable(description: "socket_group \"\(group)\" is not a group on this machine")
            }
            guard chown(staging, uid_t.max, gid) == 0 else {
                throw Unusable(description: "cannot give \(path) to group \(group): \(String(cString: strerror(errno)))")
            }
        }
        guard chmod(staging, mode_t(mode)) == 0 else {
            throw Unusable(description: "cannot set the mode of \(path): \(String(cString: strerror(errno)))")
        }
        guard rename(staging, path) == 0 else {
            throw Unusable(description: "cannot put the socket at \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// The gid of a group given by name or number; nil when there is no such group.
    static func groupID(_ group: String) -> gid_t? {
        if let numeric = gid_t(group) { return numeric }
        return getgrnam(group).map { $0.pointee.gr_gid }
    }
}
