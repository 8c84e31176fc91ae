#if canImport(Glibc)
import Glibc
#endif
import AsyncHTTPClient
import Foundation
import NIOCore

extension HTTPTransport {
    /// Why a request to `url` got no answer, in words: the errors of the network library nest
    /// their own text ("connection reset (error set): Connection refused) (errno: 111)").
    static func unreachableReason(_ error: any Error, url: URL) -> String {
        let host = url.host ?? "the server"
        let target = "\(host):\(url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80))"
        if let io = error as? IOError {
            return reason(errno: io.errnoCode, target: target, host: host) ?? String(cString: strerror(io.errnoCode))
        }
        if let client = error as? HTTPClientError {
            switch client {
            case .connectTimeout: return "no connection to \(target) within the connect timeout"
            case .readTimeout: return "\(target) stopped sending (read timeout)"
            case .deadlineExceeded: return "no answer from \(target) within the request's time limit"
            case .remoteConnectionClosed: return "\(target) closed the connection before answering"
            default: break
            }
        }
        return String(describing: error)
    }

    private static func reason(errno code: Int32, target: String, host: String) -> String? {
        switch code {
        case ECONNREFUSED: "connection refused (nothing listens on \(target))"
        case ETIMEDOUT: "the connection timed out (\(target) does not answer)"
        case EHOSTUNREACH, ENETUNREACH: "no route to \(host) (network unreachable)"
        case ECONNRESET: "\(target) reset the connection"
        default: nil
        }
    }
}
