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
        /// The system's `errno`, when the system refused.
        var code: Int32?
    }

    static let blockSize = 1 << 20

    /// Files up to this size are read whole in one call and their bytes handed back, so the
    /// parser reads the same bytes from memory instead of opening the file again.
    static let keptSize = 4 << 20

    /// Why a file could not be opened, as its owner can act on it: a file the daemon may not
    /// read needs a permission, and a chmod alone is not a change the watcher sees.
    static func openRefusal(_ code: Int32) -> String {
        let reason = String(cString: strerror(code))
        guard code == EACCES || code == EPERM else { return "cannot open: \(reason)" }
        return "the daemon may not read the file (\(reason)): let its user or group read it (chmod g+r FILE), then run steno ingest FILE"
    }

    /// The hex SHA-256 of the file at `path`, and the number of bytes read.
    static func sha256(path: String) throws(Failure) -> (hex: String, bytes: Int64) {
        let (hex, bytes, _) = try sha256(path: path, keepingUpTo: 0)
        return (hex, bytes)
    }

    /// The hex SHA-256 of the file at `path`, the number of bytes read, and the bytes
    /// themselves when the whole file is at most `limit` bytes (nil otherwise).
    static func sha256(path: String, keepingUpTo limit: Int) throws(Failure) -> (hex: String, bytes: Int64, contents: [UInt8]?) {
        let fd = open(FileSystemPath.bytes(path), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            throw Failure(description: openRefusal(code), code: code)
        }
        defer { close(fd) }
        var info = stat()
        let examined = fstat(fd, &info) == 0
        if examined, let refusal = sparseRefusal(fd, info: info) { throw Failure(description: refusal, code: nil) }
        let expected = examined ? Int(info.st_size) : Int.max
        if expected < limit, let whole = try readWhole(fd, expected: expected) {
            return (hex(SHA256.hash(data: whole)), Int64(whole.count), whole)
        }
        _ = posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL)
        // A buffer the size of the file (plus one byte, to see the end in one read) up to a
        // block: small recordings must not pay for zeroing a whole block each.
        let buffer = UnsafeMutableRawBufferPointer.allocate(
            byteCount: min(blockSize, max(4096, expected == Int.max ? blockSize : expected + 1)), alignment: 16)
        defer { buffer.deallocate() }
        var hasher = SHA256()
        var total: Int64 = 0
        while true {
            let count = read(fd, buffer.baseAddress, buffer.count)
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                throw Failure(description: "cannot read: \(String(cString: strerror(code)))", code: code)
            }
            if count == 0 { break }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            total += Int64(count)
        }
        return (hex(hasher.finalize()), total, nil)
    }

    /// The whole file when it holds exactly `expected` bytes (one read, plus one to see the
    /// end); nil when it grew, so the caller streams it instead.
    private static func readWhole(_ fd: Int32, expected: Int) throws(Failure) -> [UInt8]? {
        var failure: Int32 = 0
        // Uninitialised storage: the kernel fills it, so no zeroing pass.
        let bytes = [UInt8](unsafeUninitializedCapacity: expected + 1) { buffer, initialized in
            var filled = 0
            while filled < buffer.count {
                let count = read(fd, buffer.baseAddress.map { $0 + filled }, buffer.count - filled)
                if count < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    break
                }
                if count == 0 { break }
                filled += count
            }
            initialized = filled
        }
        if failure != 0 { throw Failure(description: "cannot read: \(String(cString: strerror(failure)))", code: failure) }
        guard bytes.count <= expected else {
            _ = lseek(fd, 0, SEEK_SET)
            return nil
        }
        return bytes
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
