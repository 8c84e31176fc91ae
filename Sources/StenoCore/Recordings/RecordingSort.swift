import Foundation

/// The orders a recordings listing can be asked for; ties go by id, in the same direction.
public enum RecordingSort: String, Sendable, Hashable, Codable, CaseIterable {
    /// When the recording started (a recording without a start time, such as a file that could
    /// not be read, by when it was catalogued).
    case recorded
    /// When the recording was first catalogued.
    case ingested
    /// The catalog's id, the order recordings were catalogued in.
    case id
    /// Its length (a recording without one counts as zero seconds).
    case length

    /// The direction a listing takes when none is asked for: the newest and the longest first;
    /// ids count up.
    public var isDescendingByDefault: Bool { self != .id }
}
