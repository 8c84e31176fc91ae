import Foundation

/// Device sign-ins in progress (a person entering a code at Microsoft's page while a daemon
/// polls the token endpoint), kept in the catalog so that every daemon sharing it can answer
/// for a sign-in and finish it, whichever daemon started it.
///
/// What redeems the sign-in (the device code) is in ``DeviceSignInRecord/sealedRequest``,
/// sealed with the daemon's secrets key like account secrets; the catalog never holds it in
/// plain text. Which daemon polls is decided by a lease (``LeaseStore``), not here.
public protocol DeviceSignInStore: Sendable {
    /// Records a sign-in that has just started. Throws `.conflict` for an id already taken.
    func addDeviceSignIn(_ signIn: DeviceSignInRecord) async throws
    /// The sign-in with this id, or nil when there is none (never started, or removed).
    func deviceSignIn(id: String) async throws -> DeviceSignInRecord?
    /// Records how a pending sign-in ended. Returns false, changing nothing, when it had
    /// ended already (another daemon finished it first).
    func finishDeviceSignIn(id: String, outcome: DeviceSignInOutcome, now: Date) async throws -> Bool
    /// The sign-ins of one owner (every owner's when nil) that did not succeed: pending, or
    /// failed and not yet removed, newest first. Succeeded ones are accounts by then.
    func unfinishedDeviceSignIns(ownerID: Int64?) async throws -> [DeviceSignInRecord]
    /// Removes sign-ins that succeeded, or were left pending past their expiry, before `cutoff`,
    /// and failed ones that failed before `failedCutoff` (kept longer, for a person to read why).
    /// Returns how many went.
    func removeDeviceSignIns(endedBefore cutoff: Date, failedBefore failedCutoff: Date) async throws -> Int
}

/// One device sign-in as the catalog keeps it.
public struct DeviceSignInRecord: Sendable, Hashable {
    /// A random id the client polls with.
    public var id: String
    /// The user the account will belong to.
    public var ownerID: Int64
    /// The sealed request: device code, client, endpoints, the account signed in again.
    public var sealedRequest: Data
    public var createdAt: Date
    /// When the device code expires; a sign-in still pending after it has failed.
    public var expiresAt: Date
    /// nil while pending.
    public var outcome: DeviceSignInOutcome?
    public var finishedAt: Date?

    public init(
        id: String, ownerID: Int64, sealedRequest: Data, createdAt: Date, expiresAt: Date, outcome: DeviceSignInOutcome? = nil,
        finishedAt: Date? = nil
    ) {
        self.id = id
        self.ownerID = ownerID
        self.sealedRequest = sealedRequest
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.outcome = outcome
        self.finishedAt = finishedAt
    }
}

/// How a device sign-in ended.
public enum DeviceSignInOutcome: Sendable, Hashable {
    /// The account was stored (its id) and its first sync queued (the job).
    case succeeded(accountID: Int64, jobID: Int64?)
    /// Why it ended without an account, as the person should read it.
    case failed(String)

    /// The catalog's `state` column.
    package var state: String {
        switch self {
        case .succeeded: return "succeeded"
        case .failed: return "failed"
        }
    }

    /// Rebuilt from the catalog's columns; nil for `pending`.
    package init?(state: String, accountID: Int64?, jobID: Int64?, message: String?) {
        switch state {
        case "succeeded": self = .succeeded(accountID: accountID ?? 0, jobID: jobID)
        case "failed": self = .failed(message ?? "the sign-in failed")
        default: return nil
        }
    }

    package var accountID: Int64? {
        if case .succeeded(let accountID, _) = self { return accountID }
        return nil
    }

    package var jobID: Int64? {
        if case .succeeded(_, let jobID) = self { return jobID }
        return nil
    }

    package var message: String? {
        if case .failed(let message) = self { return message }
        return nil
    }
}
