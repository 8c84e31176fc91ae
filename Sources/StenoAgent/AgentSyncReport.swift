import Foundation

/// What one run of ``AgentSync`` did.
public struct AgentSyncReport: Sendable, Hashable, CustomStringConvertible {
    /// Rows read from the changes feed.
    public var pulled = 0
    /// Events created on the device for rows Steno asked for.
    public var created = 0
    /// Created events the server confirmed with their `serverId` (now linked on its side),
    /// including ones created in an earlier run whose confirmation was missing.
    public var linked = 0
    /// Device events changed to match the server's copy.
    public var updatedLocally = 0
    /// Device events deleted because the server's copy was deleted.
    public var deletedLocally = 0
    /// Events upserted (new or changed on the device).
    public var pushed = 0
    /// Deletions sent (events gone from the device).
    public var deletionsSent = 0
    /// The feed's `serverTime` now saved as the next `since`; nil when the cursor did not move
    /// (a row could not be applied: it is read again next run).
    public var serverTime: Int64?
    /// What went wrong with single events; the run carried on past each.
    public var issues: [AgentSyncIssue] = []

    /// An empty report, filled in by a run.
    public init() {}

    /// Whether every event went through.
    public var isClean: Bool { issues.isEmpty }

    /// The counts in a line, then the problems.
    public var description: String {
        var text = "pulled \(pulled), created \(created), linked \(linked), updated \(updatedLocally), "
        text += "deleted \(deletedLocally) on the device; pushed \(pushed), deletions \(deletionsSent)"
        if !issues.isEmpty { text += "; \(issues.count) problem(s): " + issues.map(\.description).joined(separator: "; ") }
        return text
    }
}

/// One event the sync loop could not bring across, and why.
public struct AgentSyncIssue: Sendable, Hashable, CustomStringConvertible {
    /// Where it happened.
    public enum Stage: String, Sendable, Hashable {
        /// Applying a feed row to the device (the ``CalendarStore`` refused).
        case apply
        /// Confirming an event created for a feed row (the server refused its `serverId`).
        case link
        /// Upserting a device event or deletion (the server refused it).
        case push
    }

    /// Where it happened.
    public var stage: Stage
    /// The feed row's id or the device event's key, when one is at fault.
    public var subject: String?
    /// What went wrong, from the server or the calendar store.
    public var message: String

    /// An issue from its fields.
    public init(stage: Stage, subject: String?, message: String) {
        self.stage = stage
        self.subject = subject
        self.message = message
    }

    /// `stage subject: message`.
    public var description: String {
        "\(stage.rawValue)\(subject.map { " \($0)" } ?? ""): \(message)"
    }
}

/// How one run of the ``AgentSyncRunner`` ended.
public enum AgentSyncOutcome: Sendable, Hashable {
    /// The run went through; single events may still have issues in the report.
    case synced(AgentSyncReport)
    /// The run failed and is retried (no sooner than `retryAfter` seconds when the server said).
    case failed(message: String, retryAfter: TimeInterval?)
    /// The server refused the device's token (revoked, or the server's catalog was replaced):
    /// the runner stopped; pair the device again.
    case needsPairing(message: String)
}
