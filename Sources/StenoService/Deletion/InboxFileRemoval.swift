#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Removes a file of the inbox by its inbox-relative path, and nothing else: not a path that
/// leaves the inbox by name (`..`) or through a symlinked folder, not a folder.
enum InboxFileRemoval {
    enum Outcome: Sendable, Hashable {
        /// The file was removed.
        case removed
        /// Nothing was at the path (removed before, by someone or an earlier attempt).
        case absent
        /// The path does not name a file inside the inbox; left alone, with why.
        case outside(String)
    }

    /// Why a file inside the inbox could not be removed (the attempt is retried).
    struct Failure: Error, CustomStringConvertible {
        var path: String
        var reason: String
        var description: String { "cannot remove \(path): \(reason)" }
    }

    static func remove(_ relative: String, in inbox: Inbox) throws -> Outcome {
        guard let normalized = Inbox.normalized(relative), normalized == relative else {
            return .outside("\(relative) is not a path inside the inbox")
        }
        let absolute = inbox.absolute(normalized)
        let folder = (absolute as NSString).deletingLastPathComponent
        guard let resolvedFolder = Inbox.resolved(folder) else {
            if errno == ENOENT { return .absent }
            throw Failure(path: absolute, reason: String(cString: strerror(errno)))
        }
        guard resolvedFolder == inbox.root || resolvedFolder.hasPrefix(inbox.root + "/") else {
            return .outside("its folder leads out of the inbox, to \(resolvedFolder)")
        }
        let target = resolvedFolder + "/" + (absolute as NSString).lastPathComponent
        var status = stat()
        guard lstat(FileSystemPath.bytes(target), &status) == 0 else {
            if errno == ENOENT { return .absent }
            throw Failure(path: target, reason: String(cString: strerror(errno)))
        }
        guard (status.st_mode & S_IFMT) != S_IFDIR else { return .outside("\(target) is a folder") }
        // A symlink itself is removed, never what it points to.
        guard unlink(FileSystemPath.bytes(target)) == 0 else {
            if errno == ENOENT { return .absent }
            throw Failure(path: target, reason: String(cString: strerror(errno)))
        }
        return .removed
    }
}
