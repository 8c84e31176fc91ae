import Foundation

/// A legal hold on a recording: who placed it, when, and why.
public struct RecordingHold: Sendable, Hashable, Codable {
    public var recordingID: Int64
    public var heldAt: Date
    public var heldBy: String
    public var reason: String?

    public init(recordingID: Int64, heldAt: Date, heldBy: String, reason: String?) {
        self.recordingID = recordingID
        self.heldAt = heldAt
        self.heldBy = heldBy
        self.reason = reason
    }

    /// Why the recording is not deleted, with the way to lift the hold.
    public var refusal: String {
        "recording \(recordingID) is under a legal hold, placed by \(heldBy) on \(UTCDay.text(heldAt))\(reason.map { " (\($0))" } ?? ""): "
            + "nothing was deleted; an admin lifts the hold with steno recordings unhold \(recordingID)"
    }
}
