import Foundation

/// One term of a candidate's score, for `steno recordings explain`.
public struct ScoreTerm: Sendable, Hashable, Codable {
    /// `overlap`, `start`, `role`, `long-event`, `online-url`, `title`.
    public var name: String
    public var points: Double
    /// The arithmetic in words: "58 of 60 min of the recording inside the event".
    public var detail: String

    public init(name: String, points: Double, detail: String) {
        self.name = name
        self.points = points
        self.detail = detail
    }
}

/// A candidate with its score and the terms that make it up.
public struct ScoredCandidate: Sendable, Hashable {
    public var candidate: LinkCandidate
    public var terms: [ScoreTerm]
    /// Why the candidate cannot link by time at all (cancelled, all-day), if so.
    public var excludedBecause: String?

    public init(candidate: LinkCandidate, terms: [ScoreTerm], excludedBecause: String? = nil) {
        self.candidate = candidate
        self.terms = terms
        self.excludedBecause = excludedBecause
    }

    /// The sum of the terms.
    public var score: Double { terms.reduce(0) { $0 + $1.points } }
}

/// Scores how likely it is that a recording captured an event, for links made by time overlap.
public enum LinkScorer {
    /// Scores one candidate: the share of the recording inside the event (up to 0.5), closeness
    /// of the starts (up to 0.2), the owner's part (organiser +0.15, accepted +0.1, tentative
    /// +0.05, own calendar +0.1, declined −0.4), very long events (−0.25), the sidecar's
    /// online-meeting URL (+0.3) and title (up to +0.2).
    public static func score(_ candidate: LinkCandidate, for recording: RecordingLinkFacts, policy: LinkPolicy) -> ScoredCandidate {
        var terms: [ScoreTerm] = []
        let recordingLength = max(0, recording.duration)
        let overlap = max(0, min(recording.end, candidate.end).timeIntervalSince(max(recording.recordedAt, candidate.start)))
        // A recording of unknown (zero) length is a point in time: inside the event or not.
        let share = recordingLength > 0
            ? min(1, overlap / recordingLength)
            : (candidate.start <= recording.recordedAt && recording.recordedAt < candidate.end ? 1 : 0)
        terms.append(ScoreTerm(
            name: "overlap", points: 0.5 * share,
            detail: "\(span(overlap)) of the recording's \(span(recordingLength)) fall inside the event"))
        let offset = abs(recording.recordedAt.timeIntervalSince(candidate.start))
        let closeness = max(0, 1 - offset / (30 * 60))
        terms.append(ScoreTerm(
            name: "start", points: 0.2 * closeness,
            detail: "the recording starts \(span(offset)) \(recording.recordedAt < candidate.start ? "before" : "after") the event"))
        switch candidate.ownerRelation {
        case .organizer:
            terms.append(ScoreTerm(name: "role", points: 0.15, detail: "the owner organised it"))
        case .attendee(let response):
            let points: Double
            switch response {
            case .accepted: points = 0.1
            case .tentative: points = 0.05
            case .none: points = 0.03
            case .declined: points = -0.4
            }
            terms.append(ScoreTerm(name: "role", points: points, detail: "the owner is invited (\(response.rawValue))"))
        case .ownCalendar:
            terms.append(ScoreTerm(name: "role", points: 0.1, detail: "in the owner's own calendar"))
        case .unrelated:
            terms.append(ScoreTerm(name: "role", points: 0, detail: "no calendar that speaks for the owner invites them"))
        }
        let length = candidate.end.timeIntervalSince(candidate.start)
        if length > policy.longEvent {
            terms.append(ScoreTerm(name: "long-event", points: -0.25, detail: "the event lasts \(String(format: "%.1f", length / 3600)) h"))
        }
        if let url = recording.onlineMeetingURL, let eventURL = candidate.onlineMeetingURL, Self.sameURL(url, eventURL) {
            terms.append(ScoreTerm(name: "online-url", points: 0.3, detail: "the sidecar names the event's online-meeting URL"))
        }
        if let title = recording.title {
            let similarity = titleSimilarity(title, candidate.title)
            if similarity > 0 {
                terms.append(ScoreTerm(
                    name: "title", points: 0.2 * similarity,
                    detail: "the sidecar title shares \(Int((similarity * 100).rounded())) % of its words with the event's"))
            }
        }
        var excluded: String?
        if candidate.ownerRelation == .unrelated {
            excluded = Self.notTheOwnersEvent
        } else if candidate.status == .cancelled {
            excluded = "cancelled events are linked only by identity"
        } else if candidate.isAllDay {
            excluded = "all-day events are linked only by identity"
        }
        return ScoredCandidate(candidate: candidate, terms: terms, excludedBecause: excluded)
    }

    /// Why an event that does not speak for the owner is never linked: a member's calendar speaks
    /// only for that member, so another's event is a candidate only as its organizer's own copy.
    public static let notTheOwnersEvent =
        "the event is neither in the owner's calendars nor its organizer's own copy inviting the owner"

    /// The share of the shorter title's words found in the other (case and punctuation ignored).
    public static func titleSimilarity(_ first: String, _ second: String) -> Double {
        let a = words(first), b = words(second)
        guard !a.isEmpty, !b.isEmpty else { return 0 }
        let shared = a.intersection(b).count
        return Double(shared) / Double(min(a.count, b.count))
    }

    static func words(_ text: String) -> Set<String> {
        Set(text.lowercased().split { !$0.isLetter && !$0.isNumber }.map(String.init))
    }

    static func sameURL(_ first: String, _ second: String) -> Bool {
        func normalized(_ url: String) -> String {
            var text = url.lowercased().trimmingCharacters(in: .whitespaces)
            if let query = text.firstIndex(of: "?") { text = String(text[..<query]) }
            while text.hasSuffix("/") { text.removeLast() }
            return text.replacingOccurrences(of: "https://", with: "").replacingOccurrences(of: "http://", with: "")
        }
        return normalized(first) == normalized(second)
    }

    static func minutes(_ seconds: TimeInterval) -> Int { Int((seconds / 60).rounded()) }

    /// A span as people say it: seconds under a minute and a half (`3.5 s`, `40 s`), else
    /// minutes (`12 min`); a short recording is not "0 of 0 min".
    static func span(_ seconds: TimeInterval) -> String {
        guard seconds >= 90 else {
            let tenths = (seconds * 10).rounded() / 10
            return tenths == tenths.rounded() || tenths >= 10 ? "\(Int(seconds.rounded())) s" : "\(tenths) s"
        }
        return "\(minutes(seconds)) min"
    }
}
