import Foundation

/// One line of the access log: who did what to which recording, when, from which uid. It
/// never holds a title, a transcript or an attendee: the recording's id and its owner's name.
public struct AccessEntry: Sendable, Hashable, Codable, Identifiable {
    /// What was done.
    public enum Action: String, Sendable, Hashable, Codable, CaseIterable {
        /// The file was handed out (`recordings.open`: play, export).
        case open
        /// Deleted on someone's word (`recordings.delete`).
        case delete
        /// Deleted as missing (`recordings.purge`, `purge_missing_after_days`).
        case purge
        /// Deleted by the retention run (`keep_days`).
        case retention
        /// A legal hold placed.
        case hold
        /// A legal hold lifted.
        case unhold
        /// A deleted content's hash forgotten (`recordings.forgetContent`).
        case forgetContent = "forget-content"
        /// A person erased (`people.forget`); the detail is their redacted address, never the
        /// address itself.
        case forget
    }

    public var id: Int64
    public var at: Date
    public var action: Action
    public var recordingID: Int64?
    /// The recording's owner when it was done.
    public var owner: String?
    /// A user name, `uid N`, or `retention`.
    public var actor: String
    public var uid: UInt32?
    /// What else tells the entry apart: a content hash, a hold's reason, a rule.
    public var detail: String?

    public init(
        id: Int64, at: Date, action: Action, recordingID: Int64?, owner: String?, actor: String, uid: UInt32?, detail: String?
    ) {
        self.id = id
        self.at = at
        self.action = action
        self.recordingID = recordingID
        self.owner = owner
        self.actor = actor
        self.uid = uid
        self.detail = detail
    }
}
