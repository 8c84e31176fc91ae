import Foundation

/// The meeting a recording is linked to, as `recordings.get` names it to everyone who may see
/// the recording: its owner, an admin, and the members who see it through that meeting.
public struct RecordingMeeting: Sendable, Hashable, Codable {
    public var id: Int64
    /// The link's cached copy of the meeting's title and times (kept when its event goes).
    public var title: String?
    public var start: Date?
    public var end: Date?
    /// `linked` or `orphaned`: the states in which a link binds a recording to its meeting.
    public var state: LinkState

    public init(id: Int64, title: String?, start: Date?, end: Date?, state: LinkState) {
        self.id = id
        self.title = title
        self.start = start
        self.end = end
        self.state = state
    }

    /// The meeting `link` binds its recording to; nil when it binds none (pending, unlinked,
    /// ambiguous, or orphaned from a meeting that is gone).
    public init?(_ link: ExistingLink) {
        guard link.state == .linked || link.state == .orphaned, let id = link.meetingID else { return nil }
        self.init(id: id, title: link.cachedTitle, start: link.cachedStart, end: link.cachedEnd, state: link.state)
    }
}
