import Foundation

/// A member's held meetings by the addresses they concern (their organizers and attendees, as
/// `meeting_people` holds them): for each address, the positions of its meetings in the
/// member's held keys (``MeetingKey``, ascending listing order).
///
/// A member's `meetings --with ADDRESS` is the intersection of two sets: the few thousand
/// meetings they hold, and the address's meetings (20,000 for a busy colleague at a million).
/// Either side read from the catalog costs a page a walk of thousands of index entries; this
/// index is read once per catalog state from the member's side (their meetings' people rows,
/// a few per meeting) and held with their sets, so every address after it is a lookup.
package struct HeldMeetingPeople: Sendable {
    /// Positions in the held keys, ascending, by folded address.
    private let positions: [String: [Int32]]
    /// How to fold an address as the backend compares them (SQLite: ASCII letters, as
    /// `COLLATE NOCASE`; PostgreSQL: `citext`, lowercased).
    private let fold: @Sendable (String) -> String
    /// People rows indexed: what holding the index costs, in positions.
    package let rowCount: Int
    /// False when the member's meetings had more people rows than ``rowLimit(for:)``: nothing
    /// is indexed, and pages test the address in the catalog instead (held so, that reading
    /// the rows is not tried again on every page).
    package let isComplete: Bool

    /// The most people rows indexed for `keys`: a few dozen per meeting, and never more than
    /// a fifth of what ``VisibleSetCache`` holds in all.
    package static func rowLimit(for keys: [MeetingKey]) -> Int {
        min(32 * max(1, keys.count), VisibleSetCache<Int>.wordLimit / 5 * 2)
    }

    /// The index of a member whose meetings have more people rows than ``rowLimit(for:)``.
    package static func tooMany(fold: @escaping @Sendable (String) -> String) -> HeldMeetingPeople {
        HeldMeetingPeople(positions: [:], fold: fold, rowCount: 0, isComplete: false)
    }

    private init(positions: [String: [Int32]], fold: @escaping @Sendable (String) -> String, rowCount: Int, isComplete: Bool) {
        self.positions = positions
        self.fold = fold
        self.rowCount = rowCount
        self.isComplete = isComplete
    }

    /// Indexes `rows` (a meeting id and one of its addresses; repeats allowed) against `keys`;
    /// rows of meetings not among `keys` are left out.
    package init(keys: [MeetingKey], rows: some Sequence<(meetingID: Int64, email: String)>, fold: @escaping @Sendable (String) -> String) {
        let positionOfID = MeetingKey.positions(of: keys)
        var positions: [String: [Int32]] = [:]
        var count = 0
        for row in rows {
            guard let position = positionOfID[row.meetingID] else { continue }
            positions[fold(row.email), default: []].append(position)
            count += 1
        }
        for address in positions.keys {
            // Sorted, each once: two rows of one meeting may differ only in case.
            positions[address]?.sort()
            positions[address]?.removeAdjacentRepeats()
        }
        self.init(positions: positions, fold: fold, rowCount: count, isComplete: true)
    }

    /// The positions of the held meetings that concern `email`, ascending, each once.
    package func positions(of email: String) -> [Int32] {
        positions[fold(email)] ?? []
    }

    /// What holding the index costs in 8-byte words (``VisibleSetCache``'s unit): half a word
    /// a position, and a few words per address for its key and array.
    package var words: Int { rowCount / 2 + positions.count * 8 }

    /// Folds an address as SQLite's `COLLATE NOCASE` compares it: ASCII letters only.
    package static func asciiCaseFolded(_ email: String) -> String {
        guard email.utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else { return email }
        return String(decoding: email.utf8.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}

extension Array where Element: Equatable {
    /// Keeps the first of each run of equal elements.
    fileprivate mutating func removeAdjacentRepeats() {
        guard count > 1 else { return }
        var kept = 1
        for index in 1..<count where self[index] != self[kept - 1] {
            self[kept] = self[index]
            kept += 1
        }
        removeLast(count - kept)
    }
}
