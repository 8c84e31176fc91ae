#if canImport(Glibc)
import Glibc
#endif

/// A file could not be read for a reason that passes (descriptors or memory exhausted, a full
/// disk, an I/O hiccup). Not an `IngestError`: the job fails this attempt and is retried with
/// backoff, and nothing is catalogued, so the file keeps its recording (if it has one) and is
/// not failed for good.
struct TransientIngestError: Error, CustomStringConvertible {
    var path: String
    var reason: String
    /// The `errno` behind it, where there is one.
    var code: Int32?

    init(path: String, reason: String, code: Int32? = nil) {
        self.path = path
        self.reason = reason
        self.code = code
    }

    /// The daemon itself ran out (of descriptors or memory): the file is not at fault, so the
    /// job never gives up on it — it is postponed rather than failed after its last attempt.
    var isExhaustion: Bool { code.map(Self.exhaustionCodes.contains) ?? false }

    static let exhaustionCodes: Set<Int32> = [EMFILE, ENFILE, ENOMEM, ENOBUFS]

    var description: String { "\(path): \(reason); will retry" }

    /// System errors that say "not now" rather than "never".
    static let passingCodes: Set<Int32> = [EMFILE, ENFILE, EIO, ENOSPC, EDQUOT, ENOMEM, ENOBUFS, EAGAIN, EINTR, EBUSY, ETIMEDOUT]

    /// Whether `code` (an `errno`) is worth retrying.
    static func isPassing(_ code: Int32?) -> Bool {
        code.map(passingCodes.contains) ?? false
    }
}
