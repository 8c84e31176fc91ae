#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StenoCatalog
import StenoCore

/// A catalogued recording's file, open read-only for someone who may see the recording: the
/// descriptor is closed when the value goes, on every path.
final class RecordingFile: ReplyAttachment {
    let descriptor: Int32
    /// The inbox-relative path it was opened at.
    let path: String
    let size: Int64

    fileprivate init(descriptor: Int32, path: String, size: Int64) {
        self.descriptor = descriptor
        self.path = path
        self.size = size
    }

    deinit { close(descriptor) }

    /// The `Content-Type` of a recording's container.
    static func contentType(format: String?) -> String {
        switch format {
        case "wav", "rf64": "audio/wav"
        case "flac": "audio/flac"
        case "mp3": "audio/mpeg"
        case "mp4": "audio/mp4"
        case "ogg": "audio/ogg"
        case "webm": "audio/webm"
        case "matroska": "audio/x-matroska"
        case "caf": "audio/x-caf"
        default: "application/octet-stream"
        }
    }

    /// Why a recording's file could not be handed out.
    enum Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        /// No file at any of its paths.
        case gone(String)
        /// A path is no longer the file that was catalogued (a symlink, another file, changed
        /// bytes); it is queued for ingest again.
        case changed(path: String, reason: String)

        var description: String {
            switch self {
            case .gone(let message): message
            case .changed(let path, let reason): "\(path) \(reason) since it was catalogued; it is queued to be read again"
            }
        }
    }

    /// Opens the file of `recording` with the checks ingestion makes: at a present path, its
    /// real folder inside the inbox, the last component no symlink (`O_NOFOLLOW`), a regular
    /// file whose size and mtime are the ones catalogued for that path.
    static func open(_ recording: Recording, inbox: Inbox, store: any RecordingStore) async throws -> RecordingFile {
        let present = recording.paths.filter(\.isPresent).map(\.path)
        guard !present.isEmpty else {
            throw Refusal.gone("recording \(recording.id) has no file in the inbox any more" + (recording.paths.first.map { " (it was at \($0.path))" } ?? ""))
        }
        let states = try await store.pathStates(present)
        var missing: [String] = []
        for path in present {
            guard let state = states[path] else { continue }
            switch try opened(path, state: state, inbox: inbox) {
            case .success(let file): return file
            case .failure(.gone): missing.append(path)
            case .failure(let refusal): throw refusal
            }
        }
        throw Refusal.gone("the file of recording \(recording.id) is gone from \(missing.joined(separator: ", "))")
    }

    /// Opens one path, checked against what the catalog holds for it.
    private static func opened(_ path: String, state: PathState, inbox: Inbox) throws -> Result<RecordingFile, Refusal> {
        let absolute = inbox.absolute(path)
        // The folder must resolve to itself inside the inbox: a symlinked folder could lead anywhere.
        let folder = (absolute as NSString).deletingLastPathComponent
        guard let real = Inbox.resolved(folder) else {
            return errno == ENOENT || errno == ENOTDIR ? .failure(.gone(path)) : .failure(.changed(path: path, reason: "cannot be reached"))
        }
        guard real == folder, inbox.relative(ofAbsolute: real) != nil else {
            return .failure(.changed(path: path, reason: "lies below a symbolic link now"))
        }
        let descriptor = Glibc.open(FileSystemPath.bytes(absolute), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            switch errno {
            case ENOENT, ENOTDIR: return .failure(.gone(path))
            case ELOOP: return .failure(.changed(path: path, reason: "is a symbolic link now"))
            default: return .failure(.changed(path: path, reason: "cannot be opened (\(String(cString: strerror(errno))))"))
            }
        }
        var handedOver = false
        defer { if !handedOver { close(descriptor) } }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            return .failure(.changed(path: path, reason: "is not a regular file now"))
        }
        // The mtime as ingestion catalogues it: seconds and nanoseconds as a Date, in milliseconds.
        let modified = Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
        guard Int64(info.st_size) == state.size, state.modifiedMilliseconds == Int64((modified.timeIntervalSince1970 * 1000).rounded()) else {
            return .failure(.changed(path: path, reason: "has changed (\(info.st_size) bytes now, \(state.size) catalogued)"))
        }
        // Reads block from here on (O_NONBLOCK only kept a FIFO from stalling the open).
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        handedOver = true
        return .success(RecordingFile(descriptor: descriptor, path: path, size: Int64(info.st_size)))
    }
}
