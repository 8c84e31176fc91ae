#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

@testable import StenoCalendar

/// A server that cannot be reached is named once, with what went wrong in words: not the
/// network library's nested error text.
@Suite("HTTP transport: unreachable servers")
struct HTTPTransportFailureTests {
    /// A port on 127.0.0.1 nothing listens on: bound, then closed.
    static func closedPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        try #require(bound)
        return Int(UInt16(bigEndian: address.sin_port))
    }

    @Test func aRefusedConnectionSaysNothingListens() async throws {
        let transport = HTTPTransport(requestTimeout: .seconds(3))
        defer { Task { try? await transport.shutdown() } }
        let port = try Self.closedPort()
        let url = try #require(URL(string: "http://127.0.0.1:\(port)/team.ics"))
        do {
            _ = try await transport.send(HTTPRequestValue(method: "GET", url: url))
            Issue.record("a closed port answered")
        } catch {
            let text = String(describing: error)
            #expect(text == "could not reach http://127.0.0.1:\(port)/team.ics: connection refused (nothing listens on 127.0.0.1:\(port))")
        }
    }
}
