import Foundation

/// Which of a member's held meetings have a recording (a link `linked` or `orphaned`), in the
/// order of their held keys (``MeetingKey``), for `meetings --recorded` and `--unrecorded`.
///
/// A member's recorded page handed its statement every held meeting of the range in growing
/// chunks, each tested against the links by its key, until the page was full (most of a few
/// thousand for the first page, where their recorded meetings are a tenth of them). Held with
/// their sets, the links are read once per catalog state.
package struct HeldMeetingRecordings: Sendable {
    /// Whether each held meeting has a recording, by position.
    private let flags: [Bool]

    /// Marks the held meetings of `keys` among `recordedIDs` (meeting ids, repeats allowed;
    /// meetings not held are left out).
    package init(keys: [MeetingKey], recordedIDs: some Sequence<Int64>) {
        let positionOfID = MeetingKey.positions(of: keys)
        var flags = [Bool](repeating: false, count: keys.count)
        for id in recordedIDs {
            if let position = positionOfID[id] { flags[Int(position)] = true }
        }
        self.flags = flags
    }

    /// The positions of `candidates` (held positions) whose meeting has a recording (`recorded`)
    /// or has none, in the order given.
    package func positions(_ recorded: Bool, among candidates: some Sequence<Int>) -> [Int32] {
        candidates.lazy.filter { flags.indices.contains($0) && flags[$0] == recorded }.map(Int32.init)
    }

    /// What holding the flags costs in 8-byte words (``VisibleSetCache``'s unit).
    package var words: Int { flags.count / 8 + 1 }
}

extension MeetingKey {
    /// Each id of `keys` with its position.
    package static func positions(of keys: [MeetingKey]) -> [Int64: Int32] {
        var positions: [Int64: Int32] = [:]
        positions.reserveCapacity(keys.count)
        for (position, key) in keys.enumerated() { positions[key.id] = Int32(position) }
        return positions
    }
}
