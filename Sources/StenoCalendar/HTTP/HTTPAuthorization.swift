import Foundation

/// `Authorization` header values.
public enum HTTPAuthorization {
    /// HTTP Basic (RFC 7617), UTF-8.
    public static func basic(user: String, password: String) -> String {
        "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    /// An OAuth 2.0 bearer token (RFC 6750).
    public static func bearer(_ token: String) -> String {
        "Bearer " + token
    }
}

/// What an HTTP error status means for a sync.
public enum HTTPStatusMeaning {
    /// The sync error for a failed response: 401/403 → credentials, 429/503/504 → retry after
    /// the server's delay (60 s when it gives none), anything else → a bad source with the
    /// status and content type (never the body).
    public static func error(for response: HTTPResponseValue, doing action: String) -> CalendarSyncError {
        switch response.status {
        case 401:
            return .needsCredentials("\(action): the server refused the credentials (HTTP 401); supply new ones")
        case 429, 503, 504:
            let delay = response.retryAfter() ?? .seconds(60)
            return .retryLater(after: delay, reason: "\(action): the server is busy (HTTP \(response.status))")
        default:
            // Never the body: the server may be a local service the account's owner may not read.
            let type = response.header("Content-Type").map { ", content type \($0)" } ?? ""
            return .badSource("\(action) failed with HTTP \(response.status)\(type)")
        }
    }
}
