#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import NIOPosix
import StenoCore
import StenoMedia
import StenoStore

/// Reads one inbox path into the catalog: hashes it, parses its container, pairs its
/// sidecar and transcript, decides its owner and start time, and records the outcome.
/// Bad input becomes a `failed` recording with the reason; nothing else is affected.
struct RecordingIngestor: Sendable {
    /// What ingesting a path did.
    enum Outcome: Sendable, Equatable {
        /// The recording as catalogued (ready or failed).
        case recorded(Recording)
        /// The file is gone; its recording, if any, as it is now.
        case gone(Recording?)
        /// Not something to catalogue (litter, temporary, a folder), with why.
        case ignored(String)
        /// A sidecar or transcript: these recording paths should be read again to pair it.
        case belongsTo([String])
    }

    /// The inbox, absolute and with symlinks resolved.
    let inbox: String
    let store: any RecordingStore & UserStore
    /// The zone for dates written in file names.
    let timeZone: TimeZone

    /// Where refused sidecar owners are reported.
    let logger: Logger
    /// Reads and hashes a file (path, keep-up-to size): a seam for tests to make reading fail.
    let hashFile: @Sendable (String, Int) throws(ContentHasher.Failure) -> (hex: String, bytes: Int64, contents: [UInt8]?)

    init(
        inbox: String, store: any RecordingStore & UserStore, timeZone: TimeZone = .current,
        logger: Logger = Logger(label: "steno.ingest"),
        hashFile: @escaping @Sendable (String, Int) throws(ContentHasher.Failure) -> (hex: String, bytes: Int64, contents: [UInt8]?) =
            ContentHasher.sha256(path:keepingUpTo:)
    ) {
        self.hashFile = hashFile
        self.inbox = Self.resolved(inbox) ?? inbox
        self.store = store
        self.timeZone = timeZone
        self.logger = logger
    }

    /// Ingests the file at `relativePath` (relative to the inbox).
    /// On the `lastAttempt` of its job, a passing failure of a file without a recording is
    /// catalogued as failed instead of thrown (see ``read(_:now:lastAttempt:)``).
    func ingest(relativePath: String, now: Date = Date(), lastAttempt: Bool = false) async throws -> Outcome {
        guard let reading = await read([relativePath], now: now, lastAttempt: lastAttempt ? [relativePath] : []).first else {
            throw IngestError.permanent("\"\(relativePath)\" was not read")
        }
        return try await apply(try reading.get(), now: now)
    }

    /// Stores what reading a path found, in one transaction.
    func apply(_ reading: Reading, now: Date) async throws -> Outcome {
        switch reading {
        case .record(let record): return .recorded(try await store.recordIngest(record))
        case .gone(let path): return .gone(try await store.markPathGone(path, now: now))
        case .ignored(let reason): return .ignored(reason)
        case .belongsTo(let recordings): return .belongsTo(recordings)
        }
    }

    // MARK: - Pieces

    /// The sidecar and transcript next to a recording.
    struct Companions {
        var sidecar: Sidecar?
        var sidecarJSON: String?
        var transcript: String?
    }

    /// The sidecar and transcript next to `relative`; a companion that is a symlink counts only
    /// where the recording's folder owner could follow it (see ``refusal(ofLink:to:targetInfo:linkUID:owners:)``).
    func readCompanions(of relative: String, owners: [String: FolderOwner]) -> Companions {
        var companions = Companions()
        let stem = inbox + "/" + InboxPath.stem(relative)
        let exists = { (path: String) in Self.exists(path) && self.mayFollow(path, inFolderOf: relative, owners: owners) }
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
                if let text = try? Transcript.read(path: candidate) {
                    companions.transcript = text
                    break
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
            warnings: media.warnings + length.warnings)
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
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? inbox : inbox + "/" + folder)) ?? []
        return names.map { folder.isEmpty ? $0 : folder + "/" + $0 }
            .filter { InboxPath.stem($0) == stem && InboxPath.kind(of: $0) == .recording }
            .sorted()
    }

    /// A relative path without `.`/`..`/empty components, or nil if it would leave the inbox.
    static func normalized(_ path: String) -> String? {
        var parts: [Substring] = []
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            if component == "." { continue }
            if component == ".." { return nil }
            parts.append(component)
        }
        return parts.isEmpty || path.hasPrefix("/") ? nil : parts.joined(separator: "/")
    }

    /// Whether something exists at `path` (one system call).
    static func exists(_ path: String) -> Bool {
        access(FileSystemPath.bytes(path), F_OK) == 0
    }

    static func resolved(_ path: String) -> String? {
        guard let pointer = realpath(FileSystemPath.bytes(path), nil) else { return nil }
        defer { free(pointer) }
        return FileSystemPath.text(pointer)
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
