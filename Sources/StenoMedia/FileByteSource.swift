#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// File-scope wrappers: inside the class, `close` would name the method.
private func systemClose(_ fd: Int32) { _ = close(fd) }
private func systemPread(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int, _ offset: off_t) -> Int {
    pread(fd, buffer, count, offset)
}

/// A ``ByteSource`` over a file, read with `pread(2)`.
///
/// Keeps one read-ahead block so that walking a header (many small reads close together)
/// costs one or two system calls. Not thread-safe: use one instance per task.
public final class FileByteSource: ByteSource {
    /// Total file size at open time.
    public let size: UInt64
    private var fd: Int32
    private var cache: [UInt8] = []
    private var cacheOffset: UInt64 = 0
    /// Read-ahead block size; small files are read whole in one call.
    static let blockSize = 32 * 1024

    /// Opens `path` read-only; fails with `.io` if it cannot be opened or is not a regular file.
    public init(path: String) throws(MediaError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            throw MediaError(.io, "cannot open \(path): \(String(cString: strerror(code)))", systemErrorCode: code)
        }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            let code = errno
            systemClose(fd)
            throw MediaError(.io, "cannot stat \(path): \(String(cString: strerror(code)))", systemErrorCode: code)
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            systemClose(fd)
            throw MediaError(.io, "\(path) is not a regular file")
        }
        self.fd = fd
        self.size = UInt64(max(0, st.st_size))
    }

    deinit { if fd >= 0 { systemClose(fd) } }

    /// Closes the file early; later reads fail with `.io`.
    public func close() {
        if fd >= 0 { systemClose(fd); fd = -1 }
        cache = []
    }

    /// Up to `count` bytes at `offset`, served from the read-ahead block when possible.
    public func read(at offset: UInt64, count: Int) throws(MediaError) -> [UInt8] {
        guard count > 0, offset < size else { return [] }
        let want = Int(min(UInt64(count), size - offset))
        if offset >= cacheOffset, offset + UInt64(want) <= cacheOffset + UInt64(cache.count) {
            let start = Int(offset - cacheOffset)
            return Array(cache[start..<(start + want)])
        }
        if want >= Self.blockSize {
            return try pread(at: offset, count: want)
        }
        let blockCount = Int(min(UInt64(Self.blockSize), size - offset))
        cache = try pread(at: offset, count: blockCount)
        cacheOffset = offset
        return Array(cache[0..<min(want, cache.count)])
    }

    private func pread(at offset: UInt64, count: Int) throws(MediaError) -> [UInt8] {
        guard fd >= 0 else { throw MediaError(.io, offset: offset, "file already closed") }
        var failure: Int32 = 0
        let fd = self.fd
        // Uninitialised storage: the kernel fills it, so no zeroing pass per read.
        let result = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var filled = 0
            // Bounded: each iteration either advances or stops.
            while filled < count, let base = buffer.baseAddress {
                let n = systemPread(fd, base + filled, count - filled, off_t(offset) + off_t(filled))
                if n > 0 { filled += n; continue }
                if n < 0 && errno == EINTR { continue }
                if n < 0 { failure = errno }
                break
            }
            initialized = filled
        }
        if failure != 0 {
            throw MediaError(.io, offset: offset, "read failed: \(String(cString: strerror(failure)))", systemErrorCode: failure)
        }
        return result
    }
}
