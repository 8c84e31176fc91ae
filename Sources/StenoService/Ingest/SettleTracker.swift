/// Decides when a file is complete: it was closed after writing (or moved in, or found by a
/// rescan) and its size and mtime then stayed the same for the settle interval. A file
/// still being written (modified, not yet closed) is never declared settled by a rescan.
///
/// The time a file has been unchanged counts from its mtime when the watcher can trust it (a
/// local file system): a recording moved in with an mtime an hour old has already been
/// stable for longer than any settle interval, and is read at once instead of after it.
struct SettleTracker {
    private struct Candidate {
        var signature: FileSignature?
        var stableSince: ContinuousClock.Instant
    }

    let interval: Duration
    /// A writer that stops without closing (crashed) is forgotten after this long.
    let abandonedWriteTimeout: Duration
    private var candidates: [String: Candidate] = [:]
    private var writing: [String: ContinuousClock.Instant] = [:]
    /// Each file reported settled, as it was then: a rescan that finds it unchanged, before
    /// the catalog has caught up with it, must not report it a second time.
    private(set) var reported: [String: FileSignature] = [:]

    init(interval: Duration, abandonedWriteTimeout: Duration = .seconds(600)) {
        self.interval = interval
        self.abandonedWriteTimeout = abandonedWriteTimeout
    }

    /// Paths waiting to settle.
    var pendingCount: Int { candidates.count }

    /// Whether no file is waiting to settle or being written.
    var isEmpty: Bool { candidates.isEmpty && writing.isEmpty }

    /// CREATE or MODIFY: someone is writing.
    mutating func noteWriting(_ path: String, now: ContinuousClock.Instant) {
        writing[path] = now
        if candidates[path] != nil { candidates[path]?.stableSince = now }
    }

    /// CLOSE_WRITE or MOVED_TO: the writer is done; wait for the settle interval, less the
    /// `age` the file already had (the time since its mtime, when trusted).
    mutating func noteClosed(_ path: String, signature: FileSignature?, now: ContinuousClock.Instant, age: Duration = .zero) {
        writing[path] = nil
        candidates[path] = Candidate(signature: signature, stableSince: stableSince(now: now, age: age))
    }

    /// Found by a rescan: a candidate unless a writer is at work on it.
    mutating func noteFound(_ path: String, signature: FileSignature?, now: ContinuousClock.Instant, age: Duration = .zero) {
        guard writing[path] == nil, candidates[path] == nil else { return }
        candidates[path] = Candidate(signature: signature, stableSince: stableSince(now: now, age: age))
    }

    private func stableSince(now: ContinuousClock.Instant, age: Duration) -> ContinuousClock.Instant {
        now - min(max(age, .zero), interval)
    }

    /// Forgets every file believed to be mid-write: after lost events a CLOSE_WRITE may have
    /// gone missing, and such a file would otherwise wait for the abandoned-write timeout.
    mutating func forgetWriters() {
        writing.removeAll()
    }

    /// Deleted or moved away.
    mutating func forget(_ path: String) {
        candidates[path] = nil
        writing[path] = nil
        reported[path] = nil
    }

    /// The catalog now knows the file as reported: no need to remember it here.
    mutating func forgetReported(_ path: String) {
        reported[path] = nil
    }

    /// The paths that have settled by `now`, given their current signatures.
    mutating func settled(now: ContinuousClock.Instant, signature: (String) -> FileSignature?) -> [String] {
        writing = writing.filter { now - $0.value < abandonedWriteTimeout }
        var done: [String] = []
        for (path, candidate) in candidates where now - candidate.stableSince >= interval {
            guard writing[path] == nil else { continue }
            guard let current = signature(path) else {
                candidates[path] = nil  // gone before it settled; the delete event reports it
                continue
            }
            if current == candidate.signature {
                candidates[path] = nil
                reported[path] = current
                done.append(path)
            } else {
                candidates[path] = Candidate(signature: current, stableSince: now)
            }
        }
        return done.sorted()
    }
}
