#if canImport(Glibc)
import Glibc
#endif
import StenoCore
import StenoMedia

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
