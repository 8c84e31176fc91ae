import ArgumentParser
import Foundation
import StenoCore

/// `steno meetings --sort FIELD`: by start, the daemon's order across every page (`--reverse`
/// asks it for the latest first); by another field, the rows fetched are sorted here.
enum MeetingSort: String, ExpressibleByArgument, CaseIterable {
    case start, end, title, organizer, id

    /// `meetings` in this order (the daemon's already, for `start`).
    func sorted(_ meetings: [MeetingSummary], reverse: Bool) -> [MeetingSummary] {
        let ascending: (MeetingSummary, MeetingSummary) -> Bool
        switch self {
        case .start: return meetings
        case .end: ascending = { ($0.end ?? .distantPast, $0.id) < ($1.end ?? .distantPast, $1.id) }
        case .title:
            ascending = {
                let order = $0.title.localizedCaseInsensitiveCompare($1.title)
                return order == .orderedSame ? $0.id < $1.id : order == .orderedAscending
            }
        case .organizer: ascending = { ($0.organizer?.email ?? "", $0.id) < ($1.organizer?.email ?? "", $1.id) }
        case .id: ascending = { $0.id < $1.id }
        }
        return meetings.sorted { reverse ? ascending($1, $0) : ascending($0, $1) }
    }
}
