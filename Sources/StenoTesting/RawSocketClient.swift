#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StenoAPI

/// A Unix-socket client that sends raw bytes and reads raw lines with a timeout, for
/// testing the daemon's framing and error handling byte by byte.
public final class RawSocketClient {
    private let fd: Int32
    private var buffer: [UInt8] = []

    /// Connects to `path`.
    public init(path: String) throws {
        do {
            self.fd = try UnixDomainSocket.connect(path: path)
        } catch {
            throw TestDaemonError("connect \(path): \(error)")
        }
    }

    deinit { close(fd) }

    /// Sends bytes as they are.
    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in
                Glibc.send(fd, raw.baseAddress.map { $0 + offset }, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            guard written > 0 else { throw TestDaemonError("send: \(String(cString: strerror(errno)))") }
            offset += written
        }
    }

    /// Sends a string followed by a newline.
    public func sendLine(_ text: String) throws { try send(Array(text.utf8) + [UInt8(ascii: "\n")]) }

    /// Closes the sending direction (the daemon sees end of input).
    public func shutdownWrite() { shutdown(fd, Int32(SHUT_WR)) }

    /// The next line, or nil if none arrives within `timeout` seconds (or the daemon closed).
    public func readLine(timeout: TimeInterval = 10) throws -> [UInt8]? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                return line
            }
            guard try receive(until: deadline) == .received else { return nil }
        }
    }

    /// Whether the daemon closes the connection within `timeout` seconds (lines it sends first are kept).
    public func waitUntilClosed(timeout: TimeInterval) throws -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            switch try receive(until: deadline) {
            case .received: continue
            case .closed: return true
            case .timedOut: return false
            }
        }
    }

    private enum Receipt { case received, closed, timedOut }

    /// Appends what arrives before `deadline` to the buffer.
    private func receive(until deadline: Date) throws -> Receipt {
        while true {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { return .timedOut }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(max(1, remaining * 1000)))
            if ready < 0 && errno != EINTR { throw TestDaemonError("poll: \(String(cString: strerror(errno)))") }
            if ready <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return .closed }
            buffer.append(contentsOf: chunk[..<count])
            return .received
        }
    }

    /// The next line parsed as JSON, or nil on timeout.
    public func readJSON(timeout: TimeInterval = 10) throws -> JSONValue? {
        guard let line = try readLine(timeout: timeout) else { return nil }
        return try JSONValue.parse(line)
    }
}
