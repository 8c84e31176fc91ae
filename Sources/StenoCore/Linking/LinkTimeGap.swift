import Foundation

/// How far apart in time a recording and a meeting are, for a link made by hand: the same
/// tolerance the linker allows around a recording, so a manual link the linker could have made
/// by time never counts as apart. A person linking a recording to a meeting a month away has
/// most likely swapped the ids or mistyped one.
public struct LinkTimeGap: Sendable, Hashable {
    /// When the recording ran (a recording without a duration is a moment).
    public var recording: DateInterval
    /// When the meeting's event runs.
    public var meeting: DateInterval
    /// Time from the end of the earlier to the start of the later; always positive.
    public var seconds: TimeInterval

    /// The gap between a recording and a meeting, or nil when they overlap within the policy's
    /// tolerance (the window the linker searches for candidates).
    public init?(recordedAt: Date, duration: Double?, meetingStart: Date, meetingEnd: Date, policy: LinkPolicy) {
        let recording = DateInterval(start: recordedAt, duration: max(0, duration ?? 0))
        let meeting = DateInterval(start: meetingStart, end: max(meetingStart, meetingEnd))
        let gap = max(meeting.start.timeIntervalSince(recording.end), recording.start.timeIntervalSince(meeting.end))
        guard gap > policy.tolerance else { return nil }
        self.recording = recording
        self.meeting = meeting
        self.seconds = gap
    }

    /// The gap in words a person reads at a glance: "31 days", "1 day 4 h", "3 h 20 min", "40 min".
    public var distance: String {
        let minutes = Int((seconds / 60).rounded())
        let days = minutes / (24 * 60)
        let hours = minutes % (24 * 60) / 60
        let rest = minutes % 60
        if days >= 7 { return "\(Int((seconds / 86_400).rounded())) days" }
        if days > 0 { return "\(days) day\(days == 1 ? "" : "s")" + (hours > 0 ? " \(hours) h" : "") }
        if hours > 0 { return "\(hours) h" + (rest > 0 ? " \(rest) min" : "") }
        return "\(minutes) min"
    }

    /// "2026-10-02 14:05–14:40 UTC" (the end's date is repeated when it falls on another day;
    /// "2026-10-02 14:05 UTC" when it ends in the minute it started).
    public static func describe(_ interval: DateInterval) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        func day(_ date: Date) -> String {
            let parts = calendar.dateComponents([.year, .month, .day], from: date)
            return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
        }
        func time(_ date: Date) -> String {
            let parts = calendar.dateComponents([.hour, .minute], from: date)
            return String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
        }
        let start = "\(day(interval.start)) \(time(interval.start))"
        let end = day(interval.start) == day(interval.end) ? time(interval.end) : "\(day(interval.end)) \(time(interval.end))"
        // A recording of a few seconds starts and ends in the same minute: one time says it.
        return start + (end == time(interval.start) ? "" : "–" + end) + " UTC"
    }
}
