import Synchronization

/// Shares the ingest workers fairly while large files are hashed: at most one large file per
/// inbox folder (its owner) is read at a time, and at most all workers but one read large
/// files, so a member dropping files of many gigabytes never keeps another's short recording
/// waiting behind them. A large file that finds no share free is read again a few seconds
/// later (``IngestJobHandler/deferralPause``), by a job of its own, behind the files that
/// arrived meanwhile.
final class LargeReadShare: Sendable {
    /// Files of this size or more count as large: at disk speed (about 1 GB/s) hashing one
    /// takes a quarter of a second or more.
    static let defaultThreshold: Int64 = 256 << 20

    /// Files of at least this many bytes need a share.
    let threshold: Int64
    /// Large files read at the same time, across folders.
    let limit: Int
    private let reading = Mutex<[String: Int]>([:])

    /// A share for a daemon running `workers` jobs at once.
    init(workers: Int, threshold: Int64 = LargeReadShare.defaultThreshold) {
        self.threshold = threshold
        self.limit = max(1, workers - 1)
    }

    /// What reading one file may do.
    enum Admission: Sendable {
        /// A small file: no share needed.
        case small
        /// A share held for `folder`, given back by ``release(_:)``.
        case granted(folder: String)
        /// A large file with no share free: read it later.
        case full
    }

    /// Whether a file of `size` bytes in `folder` (the owner's inbox folder, "" for the inbox
    /// itself) may be read now.
    func admit(folder: String, size: Int64) -> Admission {
        guard size >= threshold else { return .small }
        return reading.withLock { counts in
            guard counts[folder, default: 0] == 0, counts.values.reduce(0, +) < limit else { return .full }
            counts[folder, default: 0] += 1
            return .granted(folder: folder)
        }
    }

    /// Gives a granted share back.
    func release(_ admission: Admission) {
        guard case .granted(let folder) = admission else { return }
        reading.withLock { counts in
            counts[folder, default: 1] -= 1
            if counts[folder] == 0 { counts[folder] = nil }
        }
    }
}
