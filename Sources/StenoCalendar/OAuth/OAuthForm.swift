import Foundation

/// `application/x-www-form-urlencoded` requests, as OAuth 2.0 endpoints take them.
public enum OAuthForm {
    /// Escapes a field name or value (RFC 6749 Appendix B: unreserved characters stay).
    public static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    /// A form body from ordered fields.
    public static func body(_ fields: [(String, String)]) -> Data {
        Data(fields.map { "\(encode($0.0))=\(encode($0.1))" }.joined(separator: "&").utf8)
    }

    /// POSTs a form and returns the response, whatever its status.
    ///
    /// - Throws: ``CalendarSyncError/badSource(_:)`` when the endpoint cannot be reached.
    static func post(_ fields: [(String, String)], to url: URL, transport: HTTPTransport) async throws -> HTTPResponseValue {
        let request = HTTPRequestValue(
            method: "POST", url: url,
            headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")], body: body(fields))
        do {
            return try await transport.send(request)
        } catch let error as HTTPTransportError {
            throw CalendarSyncError.badSource("POST \(url.absoluteString): \(error)")
        }
    }

    private static let unreserved: CharacterSet = {
        var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        allowed.insert(charactersIn: "-._~")
        return allowed
    }()
}
