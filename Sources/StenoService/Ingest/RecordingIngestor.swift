#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import StenoCatalog
import StenoCore
import StenoMedia

/// Reads inbox files for the catalog: hashes them, parses their containers, pairs their
/// sidecars and transcripts, and decides their owners and start times — without storing
/// anything (``IngestPlan`` turns the readings into one commit that an ``IngestStore`` writes).
/// Bad input becomes a `failed` recording with the reason; nothing else is affected.
struct RecordingIngestor: Sendable {
    let inbox: Inbox
    /// Answers what reading needs (known paths, users) and writes the commits.
    let store: any IngestStore
    /// The zone for dates written in file names.
    let timeZone: TimeZone

    /// Where refused sidecar owners are reported.
    let logger: Logger
    /// Reads and hashes a file (path, keep-up-to size): a seam for tests to make reading fail.
    let hashFile: @Sendable (String, Int) throws(ContentHasher.Failure) -> (hex: String, bytes: Int64, contents: [UInt8]?)
    /// Shares the workers fairly among owners while large files are hashed.
    let largeReads: LargeReadShare

    init(
        inbox: Inbox, store: any IngestStore, timeZone: TimeZone = .current,
        logger: Logger = Logger(label: "steno.ingest"), largeReads: LargeReadShare = LargeReadShare(workers: 2),
        hashFile: @escaping @Sendable (String, Int) throws(ContentHasher.Failure) -> (hex: String, bytes: Int64, contents: [UInt8]?) =
            ContentHasher.sha256(path:keepingUpTo:)
    ) {
        self.hashFile = hashFile
        self.largeReads = largeReads
        self.inbox = inbox
        self.store = store
        self.timeZone = timeZone
        self.logger = logger
    }

    // MARK: - Pieces

    /// The sidecar and transcript next to a recording.
    struct Companions {
        var sidecar: Sidecar?
        var sidecarJSON: String?
        var transcript: String?
        /// Companions that are there but could not be used, said on the recording.
        var warnings: [String] = []
    }

    /// The sidecar and transcript next to `relative`; a companion that is a symlink counts only
    /// where the recording's folder owner could follow it (see ``refusal(ofLink:to:targetInfo:linkUID:owners:)``).
    func readCompanions(of relative: String, owners: [String: FolderOwner]) -> Companions {
        var companions = Companions()
        let stem = inbox.absolute(InboxPath.stem(relative))
        let exists = { (path: String) in Inbox.exists(path) && self.mayFollow(path, inFolderOf: relative, owners: owners) }
        // `access` first: most recordings have no companions, and a failed lookup through
        // FileManager costs several times a plain system call.
        if exists(stem + ".json"), let data = FileManager.default.contents(atPath: stem + ".json"), data.count <= 1 << 20 {
            if let sidecar = try? Sidecar.parse(data) {
                companions.sidecar = sidecar
                companions.sidecarJSON = String(data: data, encoding: .utf8)
            }
        }
        if let text = companions.sidecar?.transcript, !text.isEmpty {
            companions.transcript = text
        } else {
            var candidates = ["txt", "vtt", "srt"].map { stem + "." + $0 }
            if let file = companions.sidecar?.transcriptFile, !file.contains("..") {
                candidates.insert((stem as NSString).deletingLastPathComponent + "/" + file, at: 0)
            }
            for candidate in candidates where exists(candidate) {
                do {
                    companions.transcript = try Transcript.read(path: candidate)
                    break
                } catch {
                    // Too large or unreadable: the recording is kept, and says why it has no transcript.
                    companions.warnings.append("transcript \((candidate as NSString).lastPathComponent) was not read: \(error)")
                }
            }
        }
        return companions
    }

    func metadata(media: MediaInfo, companions: Companions, fileName: String, modified: Date) -> RecordingMetadata {
        let sidecar = companions.sidecar
        let start = RecordingTime.resolve(
            sidecar: sidecar?.recordedAt, container: media.creationTime,
            fileName: (fileName as NSString).lastPathComponent, modified: modified, timeZone: timeZone)
        let length = Self.duration(container: media.duration, sidecar: sidecar?.durationSeconds)
        return RecordingMetadata(
            format: media.format.rawValue, codec: media.codec, duration: length.seconds, sampleRate: media.sampleRate,
            channels: media.channels, recordedAt: start?.date, recordedAtSource: start?.source,
            title: sidecar?.title ?? media.tags["title"], iCalUIDHint: sidecar?.iCalUId, eventIDHint: sidecar?.eventId,
            providerHint: sidecar?.calendarProvider, sidecarJSON: companions.sidecarJSON, transcript: companions.transcript,
            warnings: media.warnings + length.warnings + companions.warnings)
    }

    /// Largest difference between the sidecar's length and the file's that goes unremarked.
    static let sidecarDurationTolerance = 1.0

    /// The recording's length: the container's, or the sidecar's where the container has
    /// none (0); a warning when both are known and disagree by more than a second.
    static func duration(container: Double, sidecar: Double?) -> (seconds: Double, warnings: [String]) {
        guard let sidecar, sidecar > 0 else { return (container, []) }
        guard container > 0 else { return (sidecar, []) }
        guard abs(container - sidecar) > sidecarDurationTolerance else { return (container, []) }
        let text = { (seconds: Double) in String(format: "%.1f", seconds) }
        return (container, ["sidecar says \(text(sidecar)) s, the file holds \(text(container)) s"])
    }

    /// Recordings next to a sidecar or transcript: same folder, same stem.
    func siblingRecordings(of relative: String) -> [String] {
        let stem = InboxPath.stem(relative)
        let folder = (relative as NSString).deletingLastPathComponent
        let names = (try? FileManager.default.contentsOfDirectory(atPath: inbox.absolute(folder))) ?? []
        return names.map { folder.isEmpty ? $0 : folder + "/" + $0 }
            .filter { InboxPath.stem($0) == stem && InboxPath.kind(of: $0) == .recording }
            .sorted()
    }
}

/// Errors of ingestion that retrying cannot fix.
enum IngestError: Error, CustomStringConvertible {
    case permanent(String)

    var description: String {
        switch self {
        case .permanent(let message): return message
        }
    }
}
