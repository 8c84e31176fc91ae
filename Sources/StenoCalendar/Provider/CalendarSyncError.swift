import Foundation

/// Sync failures with a meaning to the service: what the account's health becomes, and when
/// to try again.
public enum CalendarSyncError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server refused the credentials (HTTP 401, `invalid_grant`): the account needs a
    /// person to supply new ones; retrying does not help.
    case needsCredentials(String)
    /// The server asked to come back later (429, 503 with Retry-After).
    case retryLater(after: Duration, reason: String)
    /// The account's source is not usable as configured (not a calendar, a 404, bad settings):
    /// retried on schedule, but a person should look.
    case badSource(String)
    /// The server sent something Steno cannot read.
    case malformedResponse(String)

    public var description: String {
        switch self {
        case .needsCredentials(let message): return message
        case .retryLater(let after, let reason): return "\(reason) (retry after \(after.components.seconds) s)"
        case .badSource(let message): return message
        case .malformedResponse(let message): return message
        }
    }
}
