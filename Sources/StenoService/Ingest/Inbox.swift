#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StenoCore
import StenoMedia

/// The inbox folder and the paths under it, resolved in this one place: the folder itself
/// (absolute, symlinks resolved, once), a path a job or a caller names (relative, never
/// leaving the folder), and where a symlink under it leads. Paths are text in
/// ``InboxPath/escapedName(_:)`` form; ``FileSystemPath`` turns them back into bytes.
struct Inbox: Sendable, Hashable {
    /// The folder, absolute and with symlinks resolved.
    let root: String

    /// The inbox at `configured`, resolved now (as given when it cannot be resolved, e.g. not
    /// created yet).
    init(_ configured: String) {
        root = Self.resolved(configured) ?? configured
    }

    /// The absolute path of `relative` ("" is the inbox itself).
    func absolute(_ relative: String) -> String {
        relative.isEmpty ? root : root + "/" + relative
    }

    /// The inbox-relative path of an absolute path at or below the inbox ("" for the inbox
    /// itself), or nil when it lies elsewhere.
    func relative(ofAbsolute path: String) -> String? {
        if path == root { return "" }
        guard path.hasPrefix(root + "/") else { return nil }
        return String(path.dropFirst(root.count + 1))
    }

    /// The inbox-relative path of a path a caller gave (absolute, or relative to the inbox),
    /// `.` and `..` resolved by name; nil when it lies outside.
    func relative(ofGiven path: String) -> String? {
        relative(ofAbsolute: URL(fileURLWithPath: path.hasPrefix("/") ? path : absolute(path)).standardizedFileURL.path)
    }

    /// A job's relative path without `.`/`..`/empty components, or nil if it would leave the inbox.
    static func normalized(_ path: String) -> String? {
        var parts: [Substring] = []
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            if component == "." { continue }
            if component == ".." { return nil }
            parts.append(component)
        }
        return parts.isEmpty || path.hasPrefix("/") ? nil : parts.joined(separator: "/")
    }

    /// Where `path` really is (symlinks resolved), or nil with `errno` set.
    static func resolved(_ path: String) -> String? {
        guard let pointer = realpath(FileSystemPath.bytes(path), nil) else { return nil }
        defer { free(pointer) }
        return FileSystemPath.text(pointer)
    }

    /// Whether something exists at `path` (one system call).
    static func exists(_ path: String) -> Bool {
        access(FileSystemPath.bytes(path), F_OK) == 0
    }
}

/// Paths under the inbox are text in ``InboxPath/escapedName(_:)`` form (bytes that are not
/// UTF-8 written `\xHH`); the system calls need the original bytes back.
enum FileSystemPath {
    /// The NUL-terminated bytes of the file `path` (escaped form) names, for a system call.
    static func bytes(_ path: String) -> [CChar] {
        InboxPath.fileSystemBytes(of: path).map { CChar(bitPattern: $0) } + [0]
    }

    /// A path the system gave back (`realpath`), in escaped form.
    static func text(_ pointer: UnsafePointer<CChar>) -> String {
        InboxPath.escapedName(UnsafeBufferPointer(start: pointer, count: strlen(pointer)).lazy.map { UInt8(bitPattern: $0) })
    }

    /// The metadata of the file at `path` (escaped form). A name that is not UTF-8 is opened by
    /// its bytes and read through its descriptor, as the parser opens files by text path.
    static func probe(_ path: String) throws(MediaError) -> MediaInfo {
        guard InboxPath.hasEscapes(path) else { return try MediaProbe.probe(path: path) }
        let fd = open(bytes(path), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            throw MediaError(.io, "cannot open \(path): \(String(cString: strerror(code)))", systemErrorCode: code)
        }
        defer { close(fd) }
        return try MediaProbe.probe(path: "/proc/self/fd/\(fd)")
    }
}
