import Foundation

/// Why a request to the Steno server failed, in terms the app can act on.
public enum AgentClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `401`: the pairing code is wrong, expired or used, or the device token is unknown or
    /// revoked. Pair the device again.
    case unauthorized(message: String)
    /// `429`: too many failed attempts from this address; try again after `retryAfter`
    /// seconds (nil when the server did not say).
    case rateLimited(retryAfter: TimeInterval?)
    /// `400`: the server refused the request as malformed; `message` says why.
    case badRequest(message: String)
    /// `413`: the request's body is over the server's limit (``StenoAgentClient/upsert(_:)``
    /// splits its batches when it gets this).
    case payloadTooLarge(message: String)
    /// Any other error status; `message` is the server's `error` text or the start of its body.
    case server(status: Int, message: String)
    /// The server could not be reached or the connection failed (no network, wrong address,
    /// TLS refused, timeout). Try again later.
    case transport(message: String)
    /// The server answered something this library cannot read: most likely the base URL does
    /// not point at a Steno device agent listener.
    case invalidResponse(message: String)

    /// The error in a sentence, with what to do about it.
    public var description: String {
        switch self {
        case .unauthorized(let message):
            return "the Steno server refused the device (pair it again): \(message)"
        case .rateLimited(let retryAfter):
            return "the Steno server is slowing this address down; retry after \(retryAfter.map { "\(Int($0)) s" } ?? "a while")"
        case .badRequest(let message):
            return "the Steno server refused the request: \(message)"
        case .payloadTooLarge(let message):
            return "the request is larger than the Steno server takes: \(message)"
        case .server(let status, let message):
            return "the Steno server answered HTTP \(status): \(message)"
        case .transport(let message):
            return "cannot reach the Steno server: \(message)"
        case .invalidResponse(let message):
            return "unexpected answer from the Steno server (is the URL its device agent listener?): \(message)"
        }
    }

    /// Whether trying the same request again later may succeed (network trouble, throttling,
    /// a server error) rather than needing the user (pairing again, fixing the URL).
    public var isTransient: Bool {
        switch self {
        case .rateLimited, .transport: return true
        case .server(let status, _): return status >= 500
        case .unauthorized, .badRequest, .payloadTooLarge, .invalidResponse: return false
        }
    }

    /// The error for a non-2xx answer.
    static func from(status: Int, body: Data, retryAfter: String?) -> AgentClientError {
        let message = serverMessage(body)
        switch status {
        case 401, 403: return .unauthorized(message: message)
        case 429: return .rateLimited(retryAfter: retryAfter.flatMap { TimeInterval($0.trimmingCharacters(in: .whitespaces)) })
        case 413: return .payloadTooLarge(message: message)
        case 400, 422: return .badRequest(message: message)
        default: return .server(status: status, message: message)
        }
    }

    /// The `error` of a `{"error": "…"}` body, else the body's first 200 characters.
    static func serverMessage(_ body: Data) -> String {
        struct ErrorBody: Decodable { var error: String }
        if let decoded = try? JSONDecoder().decode(ErrorBody.self, from: body) { return decoded.error }
        let text = String(decoding: body.prefix(200), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? "(no message)" : text
    }
}
