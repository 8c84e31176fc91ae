import Foundation

/// A mirrored event as the linker sees it, with how the recording's owner relates to it.
public struct LinkCandidate: Sendable, Hashable {
    public var meetingID: Int64
    public var eventID: Int64
    /// The event's provider id (Graph id, CalDAV href#RECURRENCE-ID).
    public var eventRemoteID: String
    /// The occurrence's iCalUID (Graph: per occurrence; iCalendar: the series UID).
    public var iCalUID: String?
    public var seriesUID: String?
    /// The meeting's identity (iCalUID, or UID#RECURRENCE-ID).
    public var meetingIdentity: String
    public var title: String
    public var start: Date
    public var end: Date
    public var isAllDay: Bool
    public var status: EventStatus
    public var onlineMeetingURL: String?
    /// How the recording's owner relates to the event.
    public var ownerRelation: OwnerRelation

    /// The owner's part in an event.
    public enum OwnerRelation: Sendable, Hashable {
        /// The owner organised it.
        case organizer
        /// The owner is invited and answered so.
        case attendee(AttendeeResponse)
        /// It is in the owner's own calendar, without the owner in its attendee list.
        case ownCalendar
        /// None of those, as far as a calendar that may speak for the owner says: the event is not
        /// the owner's, nor its organizer's own copy naming the owner. Such an event is never
        /// linked automatically (only a person links to it, and an admin only).
        case unrelated
    }

    public init(
        meetingID: Int64, eventID: Int64, eventRemoteID: String, iCalUID: String? = nil, seriesUID: String? = nil,
        meetingIdentity: String, title: String, start: Date, end: Date, isAllDay: Bool = false, status: EventStatus = .confirmed,
        onlineMeetingURL: String? = nil, ownerRelation: OwnerRelation = .ownCalendar
    ) {
        self.meetingID = meetingID
        self.eventID = eventID
        self.eventRemoteID = eventRemoteID
        self.iCalUID = iCalUID
        self.seriesUID = seriesUID
        self.meetingIdentity = meetingIdentity
        self.title = title
        self.start = start
        self.end = end
        self.isAllDay = isAllDay
        self.status = status
        self.onlineMeetingURL = onlineMeetingURL
        self.ownerRelation = ownerRelation
    }
}

extension LinkCandidate {
    /// One candidate per meeting: the event through which the owner relates most closely.
    public static func onePerMeeting(_ candidates: [LinkCandidate]) -> [LinkCandidate] {
        func rank(_ relation: LinkCandidate.OwnerRelation) -> Int {
            switch relation {
            case .organizer: return 0
            case .attendee: return 1
            case .ownCalendar: return 2
            case .unrelated: return 3
            }
        }
        guard candidates.count > 1 else { return candidates }
        // Positions, not the candidates themselves, are kept and sorted: bulk linking calls
        // this for every recording, and moving the large values was most of its cost.
        var best: [Int64: Int] = Dictionary(minimumCapacity: candidates.count)
        for (position, candidate) in candidates.enumerated() {
            if let kept = best[candidate.meetingID] {
                let current = candidates[kept]
                if (rank(current.ownerRelation), current.eventID) <= (rank(candidate.ownerRelation), candidate.eventID) { continue }
            }
            best[candidate.meetingID] = position
        }
        var order = Array(best.values)
        order.sort { (candidates[$0].start, candidates[$0].eventID) < (candidates[$1].start, candidates[$1].eventID) }
        return order.map { candidates[$0] }
    }
}

/// What the linker knows about a recording.
public struct RecordingLinkFacts: Sendable, Hashable {
    public var recordingID: Int64
    public var recordedAt: Date
    /// Seconds.
    public var duration: Double
    /// A title from the sidecar, compared with event titles.
    public var title: String?
    /// The sidecar's iCalUID and event id: identity links.
    public var iCalUIDHint: String?
    public var eventIDHint: String?
    /// An online-meeting URL named in the sidecar.
    public var onlineMeetingURL: String?

    public init(
        recordingID: Int64, recordedAt: Date, duration: Double, title: String? = nil, iCalUIDHint: String? = nil,
        eventIDHint: String? = nil, onlineMeetingURL: String? = nil
    ) {
        self.recordingID = recordingID
        self.recordedAt = recordedAt
        self.duration = duration
        self.title = title
        self.iCalUIDHint = iCalUIDHint
        self.eventIDHint = eventIDHint
        self.onlineMeetingURL = onlineMeetingURL
    }

    /// When the recording ends.
    public var end: Date { recordedAt.addingTimeInterval(max(0, duration)) }

    /// The interval candidates must overlap.
    public func searchWindow(_ policy: LinkPolicy) -> DateInterval {
        DateInterval(start: recordedAt.addingTimeInterval(-policy.tolerance), end: end.addingTimeInterval(policy.tolerance))
    }

    /// Whether the sidecar names an event.
    public var hasIdentityHint: Bool { iCalUIDHint?.isEmpty == false || eventIDHint?.isEmpty == false }
}
