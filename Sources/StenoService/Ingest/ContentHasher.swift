#if canImport(Glibc)
import Glibc
#endif
import Crypto
import Foundation

/// Streaming SHA-256 of a file: a recording's identity. Reads in large blocks with one
/// reusable buffer, so memory stays flat whatever the file size.
enum ContentHasher {
    /// Why a file could not be hashed.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static let blockSize = 1 << 20

    /// The hex SHA-256 of the file at `path`, and the number of bytes read.
    static func sha256(path: String) throws(Failure) -> (hex: String, bytes: Int64) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(description: "cannot open: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        _ = posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL)
        var hasher = SHA256()
        var total: Int64 = 0
        var buffer = [UInt8](repeating: 0, count: blockSize)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "cannot read: \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            buffer.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            total += Int64(count)
        }
        let digest = hasher.finalize()
        return (digest.map { String(format: "%02x", $0) }.joined(), total)
    }
}
