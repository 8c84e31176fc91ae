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
        // A buffer the size of the file (plus one byte, to see the end in one read) up to a
        // block: small recordings must not pay for zeroing a whole block each.
        var info = stat()
        let expected = fstat(fd, &info) == 0 ? Int(info.st_size) : blockSize
        let buffer = UnsafeMutableRawBufferPointer.allocate(
            byteCount: min(blockSize, max(4096, expected + 1)), alignment: 16)
        defer { buffer.deallocate() }
        var hasher = SHA256()
        var total: Int64 = 0
        while true {
            let count = read(fd, buffer.baseAddress, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "cannot read: \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            total += Int64(count)
        }
        let digest = hasher.finalize()
        return (hex(digest), total)
    }

    /// Lowercase hex of a digest, without a formatter per byte.
    static func hex(_ digest: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64)
        for byte in digest {
            bytes.append(digits[Int(byte >> 4)])
            bytes.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
