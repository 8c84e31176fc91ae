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

    init(inbox: String, store: any RecordingStore & UserStore, timeZone: TimeZone = .current) {
        self.inbox = Self.resolved(inbox) ?? inbox
        self.store = store
        self.timeZone = timeZone
    }

    /// Ingests the file at `relativePath` (relative to the inbox).
    func ingest(relativePath: String, now: Date = Date()) async throws -> Outcome {
        guard let relative = Self.normalized(relativePath) else {
            throw IngestError.permanent("\"\(relativePath)\" is not a path inside the inbox")
        }
        let absolute = inbox + "/" + relative
        switch InboxPath.kind(of: relative) {
        case .ignored:
            return .ignored("temporary, hidden or system file")
        case .sidecar, .transcript:
            return .belongsTo(siblingRecordings(of: relative))
        case .recording:
            break
        }
        var info = stat()
        guard lstat(absolute, &info) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { return .gone(try await store.markPathGone(relative, now: now)) }
            return .recorded(try await fail(relative, size: 0, modified: now, reason: "cannot examine the file: \(String(cString: strerror(errno)))", now: now))
        }
        if (info.st_mode & S_IFMT) == S_IFLNK {
            guard let target = Self.resolved(absolute) else {
                return .recorded(try await fail(relative, size: 0, modified: now, reason: "broken symlink", now: now))
            }
            guard target.hasPrefix(inbox + "/") else {
                return .recorded(try await fail(relative, size: 0, modified: now, reason: "symlink leads outside the inbox (to \(target)); refused", now: now))
            }
            guard stat(target, &info) == 0 else {
                return .gone(try await store.markPathGone(relative, now: now))
            }
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return .ignored("not a regular file") }
        let size = Int64(info.st_size)
        let modified = Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)

        let hash: String
        if let known = try await unchangedHash(of: relative, size: size, modified: modified) {
            hash = known  // same size and mtime as when last read: reading companions again is enough
        } else {
            do {
                // Reading a whole file blocks: keep it off Swift's few cooperative threads.
                hash = try await NIOThreadPool.singleton.runIfActive { try ContentHasher.sha256(path: absolute).hex }
            } catch let error as ContentHasher.Failure {
                return .recorded(try await fail(relative, size: size, modified: modified, reason: error.description, now: now))
            }
        }
        // Parse and read the companions off the cooperative threads; a parse failure is an outcome.
        let (media, companions) = try await NIOThreadPool.singleton.runIfActive { [self] in
            (Result { () throws(MediaError) in try MediaProbe.probe(path: absolute) }, readCompanions(of: relative))
        }
        let owner = try await owner(of: relative, sidecarOwner: companions.sidecar?.owner, fileUID: info.st_uid)
        let outcome: IngestRecord.Outcome
        switch media {
        case .success(let media):
            outcome = .ready(metadata(media: media, companions: companions, fileName: relative, modified: modified))
        case .failure(let error):
            outcome = .failed(reason: error.description)
        }
        let record = IngestRecord(
            path: relative, size: size, modified: modified, contentHash: hash, ownerID: owner, outcome: outcome, now: now)
        return .recorded(try await store.recordIngest(record))
    }

    // MARK: - Pieces

    /// The stored hash of a path whose size and mtime have not changed since it was read.
    private func unchangedHash(of path: String, size: Int64, modified: Date) async throws -> String? {
        guard let state = try await store.pathState(path), state.isPresent, state.size == size,
            state.modifiedMilliseconds == Int64((modified.timeIntervalSince1970 * 1000).rounded())
        else { return nil }
        return try await store.recording(id: state.recordingID, visibleTo: nil).contentHash
    }

    private func fail(_ path: String, size: Int64, modified: Date, reason: String, now: Date) async throws -> Recording {
        let owner = try await owner(of: path, sidecarOwner: nil, fileUID: nil)
        return try await store.recordIngest(
            IngestRecord(path: path, size: size, modified: modified, contentHash: nil, ownerID: owner, outcome: .failed(reason: reason), now: now))
    }

    /// The sidecar's owner email, else the inbox folder's user, else the file owner's uid.
    private func owner(of path: String, sidecarOwner: String?, fileUID: uid_t?) async throws -> Int64? {
        if let email = sidecarOwner, let user = try? await store.user(matching: email) { return user.id }
        if let folder = InboxPath.ownerFolder(of: path), let user = try? await store.user(matching: folder), user.name.lowercased() == folder.lowercased() {
            return user.id
        }
        if let fileUID, let user = try await store.user(forUID: fileUID) { return user.id }
        return nil
    }

    /// The sidecar and transcript next to a recording.
    struct Companions {
        var sidecar: Sidecar?
        var sidecarJSON: String?
        var transcript: String?
    }

    private func readCompanions(of relative: String) -> Companions {
        var companions = Companions()
        let stem = inbox + "/" + InboxPath.stem(relative)
        if let data = FileManager.default.contents(atPath: stem + ".json"), data.count <= 1 << 20 {
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
            for candidate in candidates where FileManager.default.fileExists(atPath: candidate) {
                if let text = try? Transcript.read(path: candidate) {
                    companions.transcript = text
                    break
                }
            }
        }
        return companions
    }

    private func metadata(media: MediaInfo, companions: Companions, fileName: String, modified: Date) -> RecordingMetadata {
        let sidecar = companions.sidecar
        let start = RecordingTime.resolve(
            sidecar: sidecar?.recordedAt, container: media.creationTime,
            fileName: (fileName as NSString).lastPathComponent, modified: modified, timeZone: timeZone)
        return RecordingMetadata(
            format: media.format.rawValue, codec: media.codec, duration: media.duration, sampleRate: media.sampleRate,
            channels: media.channels, recordedAt: start?.date, recordedAtSource: start?.source,
            title: sidecar?.title ?? media.tags["title"], iCalUIDHint: sidecar?.iCalUId, eventIDHint: sidecar?.eventId,
            providerHint: sidecar?.calendarProvider, sidecarJSON: companions.sidecarJSON, transcript: companions.transcript)
    }

    /// Recordings next to a sidecar or transcript: same folder, same stem.
    private func siblingRecordings(of relative: String) -> [String] {
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

    static func resolved(_ path: String) -> String? {
        guard let pointer = realpath(path, nil) else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
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
