import Synchronization

/// The meetings and recordings each member may see, held until a transaction changes the
/// catalog.
///
/// Built from the sets of `SQLiteCatalog+Visibility.swift` (a few thousand ids through three
/// joins), a member's set cost more than the page it filtered, and every page of one listing
/// built it again. Held here, a member's listings and searches read only the part of the set
/// their range and position select.
///
/// Never stale: an entry is stamped with the generation of ``ChangeObserver`` read *before*
/// the read transaction that computed it began, and served only while the generation is
/// unchanged. Every committed transaction that changed a row (a calendar sync, a link, a
/// recording, a user's emails, a deletion) bumps the generation, so the first listing after it
/// computes the sets again; a commit racing a computation makes the next call compute again
/// rather than serve what was read before it.
final class VisibleSetCache: Sendable {
    /// A member's visible meetings in the order of an ascending listing (start, meetings
    /// without one first, then id), and visible recordings by id.
    struct Sets: Sendable {
        var meetings: [MeetingKey]?
        var recordings: [Int64]?
    }

    private struct Entry {
        var generation: UInt64
        var sets: Sets
    }

    /// Members held at once: a few kilobytes each (16 bytes per visible meeting), dropped
    /// whole when full (the next listing of each computes its sets again).
    static let capacity = 64

    private let entries = Mutex<[Int64: Entry]>([:])
    private let observer: ChangeObserver

    init(observer: ChangeObserver) {
        self.observer = observer
    }

    /// Bumped by every commit that changed a row.
    var generation: UInt64 { observer.generation.load(ordering: .acquiring) }

    /// The sets of `user` computed at `generation`, if that is still the catalog's.
    func sets(of user: Int64, at generation: UInt64) -> Sets? {
        entries.withLock { entries in
            guard let entry = entries[user], entry.generation == generation else { return nil }
            return entry.sets
        }
    }

    /// Keeps `sets` of `user`, computed by a read that began at `generation`, merged with the
    /// other set already held for the same generation.
    func store(_ sets: Sets, of user: Int64, at generation: UInt64) {
        entries.withLock { entries in
            var merged = sets
            if let held = entries[user], held.generation == generation {
                merged.meetings = merged.meetings ?? held.sets.meetings
                merged.recordings = merged.recordings ?? held.sets.recordings
            }
            if entries[user] == nil, entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[user] = Entry(generation: generation, sets: merged)
        }
    }
}

/// A meeting's place in an ascending listing: its start (`Int64.min` for a meeting without
/// one, which SQLite sorts before every start), then its id.
struct MeetingKey: Sendable, Comparable {
    var start: Int64
    var id: Int64

    init(start: Int64?, id: Int64) {
        self.start = start ?? Int64.min
        self.id = id
    }

    static func < (lhs: MeetingKey, rhs: MeetingKey) -> Bool {
        (lhs.start, lhs.id) < (rhs.start, rhs.id)
    }
}
