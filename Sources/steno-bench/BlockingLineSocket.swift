#if canImport(Glibc)
import Glibc
#endif
import StenoAPI

/// The leanest possible client for measuring the server, not the client: a blocking
/// `AF_UNIX` socket writing a prepared frame and reading one line back.
final class BlockingLineSocket {
    private let fd: Int32
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    private var start = 0
    private var end = 0

    init?(path: String) {
        guard let fd = try? UnixDomainSocket.connect(path: path) else { return nil }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Sends `frame` and reads up to the next newline; returns the reply's length, or nil if the peer closed.
    func roundTrip(_ frame: [UInt8]) -> Int? {
        let sent = frame.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == frame.count else { return nil }
        var length = 0
        while true {
            if let newline = buffer[start..<end].firstIndex(of: 10) {
                length += newline - start
                start = newline + 1
                return length
            }
            length += end - start
            start = 0
            end = 0
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            end = count
        }
    }
}
