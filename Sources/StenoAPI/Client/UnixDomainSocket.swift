#if canImport(Glibc)
import Glibc
#endif

/// Opening `AF_UNIX` stream connections, shared by the CLI's client, the daemon's check for
/// a live socket, the test harness and the benchmarks.
public enum UnixDomainSocket {
    /// Why a connection could not be opened: the `errno` and its text.
    public struct ConnectError: Error, Sendable, CustomStringConvertible {
        /// The `errno` value (`ENOENT`, `ECONNREFUSED`, `EACCES`, …).
        public var code: Int32
        /// What went wrong, in words.
        public var description: String
    }

    /// The bytes a socket path may hold, its terminating NUL included (`sun_path`).
    public static var pathCapacity: Int { MemoryLayout.size(ofValue: sockaddr_un().sun_path) }

    /// Connects a blocking stream socket to `path` and returns its descriptor; the caller closes it.
    public static func connect(path: String) throws(ConnectError) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = pathCapacity
        guard bytes.count < capacity else {
            throw ConnectError(code: ENAMETOOLONG, description: "the socket path is longer than \(capacity - 1) bytes")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ConnectError(code: errno, description: String(cString: strerror(errno))) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            close(fd)
            throw ConnectError(code: code, description: String(cString: strerror(code)))
        }
        return fd
    }
}
