import Foundation

/// The knobs of linking by time: how far around a recording to look, what a score must reach,
/// and when two candidates are too close to call.
public struct LinkPolicy: Sendable, Hashable {
    /// Events are candidates when they overlap [recordedAt − tolerance, end + tolerance].
    public var tolerance: TimeInterval = 15 * 60
    /// The lowest score that links.
    public var threshold = 0.3
    /// When the best two scores are closer than this, the link is `ambiguous`.
    public var ambiguityMargin = 0.05
    /// Events longer than this count against (all-day-ish blocks, "focus time").
    public var longEvent: TimeInterval = 4 * 3600
    /// A moved event is looked for within this distance of its cached start (same title).
    public var titleMatchWindow: TimeInterval = 5 * 60

    /// The defaults: 15 min tolerance, threshold 0.3, margin 0.05, long events over 4 h.
    public init() {}
}
