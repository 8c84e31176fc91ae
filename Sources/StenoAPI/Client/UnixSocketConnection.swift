#if canImport(Glibc)
import Glibc
#endif

/// A connected `AF_UNIX` stream socket with newline framing, using blocking POSIX calls:
/// the CLI makes one call at a time and needs no event loop.
final class UnixSocketConnection {
    private let fd: Int32
    private let path: String
    private var buffer: [UInt8] = []
    private var scanned = 0
    /// What each `recv` reads into, allocated once.
    private var chunk = [UInt8](repeating: 0, count: 256 * 1024)
    /// Descriptors the daemon attached to what was read, oldest first (``takeDescriptor()``).
    private var descriptors: [Int32] = []

    init(location: SocketLocation) throws(StenoClientError) {
        self.path = location.path
        do {
            self.fd = try UnixDomainSocket.connect(path: path)
        } catch {
            switch error.code {
            case ENOENT, ECONNREFUSED, ENOTDIR: throw .daemonNotRunning(tried: [location])
            case EACCES, EPERM: throw .permissionDenied(location, SocketDenial.diagnose(location.path))
            default: throw .connectionFailed(socketPath: path, reason: error.description)
            }
        }
    }

    deinit {
        close(fd)
        descriptors.forEach { close($0) }
    }

    /// The oldest descriptor the daemon attached to a reply and nobody took yet; the caller
    /// owns it (and closes it).
    func takeDescriptor() -> Int32? {
        descriptors.isEmpty ? nil : descriptors.removeFirst()
    }

    /// Writes all bytes, retrying short writes.
    func write(_ bytes: [UInt8]) throws(StenoClientError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in
                send(fd, raw.baseAddress.map { $0 + offset }, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw .connectionFailed(socketPath: path, reason: "send failed: \(String(cString: strerror(errno)))")
            }
            offset += written
        }
    }

    /// Reads up to the next newline and returns the line without it.
    func readLine() throws(StenoClientError) -> [UInt8] {
        while true {
            if let newline = Self.firstNewline(in: buffer, from: scanned) {
                if newline == buffer.count - 1 {
                    // The usual case (one reply, then the daemon waits): hand the buffer over
                    // rather than copy a page of half a megabyte out of it.
                    var line: [UInt8] = []
                    swap(&line, &buffer)
                    line.removeLast()
                    scanned = 0
                    return line
                }
                let line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                scanned = 0
                return line
            }
            scanned = buffer.count
            // recvmsg rather than recv: a reply may carry a descriptor (recordings.open).
            let received = chunk.withUnsafeMutableBytes { DescriptorMessage.receive(into: $0, from: fd) }
            let count: Int
            switch received {
            case .success(let (read, attached)):
                count = read
                descriptors += attached
            case .failure(let failure):
                throw .connectionFailed(socketPath: path, reason: "receive failed: \(failure)")
            }
            if count == 0 { throw .protocolError("the daemon closed the connection") }
            buffer.append(contentsOf: chunk[..<count])
        }
    }

    /// The index of the first newline in `bytes` at or after `start`: `memchr`, where
    /// `firstIndex(of:)` tested a byte at a time (the replies of an `--all` are megabytes).
    static func firstNewline(in bytes: [UInt8], from start: Int) -> Int? {
        guard start < bytes.count else { return nil }
        return bytes.withUnsafeBytes { raw -> Int? in
            guard let base = raw.baseAddress, let found = memchr(base + start, Int32(UInt8(ascii: "\n")), raw.count - start) else { return nil }
            return base.distance(to: UnsafeRawPointer(found))
        }
    }
}
