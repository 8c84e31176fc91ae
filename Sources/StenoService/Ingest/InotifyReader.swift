#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StenoCore
import Synchronization

/// One inotify event: the watch it came from, what happened, and the name in that folder.
struct InotifyEvent: Sendable, Hashable {
    var watch: Int32
    var mask: UInt32
    var cookie: UInt32
    var name: String

    var isDirectory: Bool { mask & UInt32(IN_ISDIR) != 0 }
    func has(_ flag: Int32) -> Bool { mask & UInt32(bitPattern: flag) != 0 }
}

/// What drives the watcher's loop: events from the kernel, or the clock.
enum WatcherInput: Sendable {
    case events([InotifyEvent])
    case tick
}

/// Owns an inotify descriptor and a reader thread that turns its events, and a tick every
/// `tickInterval`, into one stream, so the watcher's state lives in a single loop.
final class InotifyReader: Sendable {
    /// The events the watcher asks for on every folder.
    static let folderMask = UInt32(
        IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CREATE | IN_MODIFY | IN_DELETE_SELF | IN_MOVE_SELF
            | IN_DONT_FOLLOW | IN_EXCL_UNLINK)

    let descriptor: Int32
    private let stopped = Atomic<Bool>(false)
    private let lostEvents = Atomic<Bool>(false)

    /// Whether event reads were dropped since the last call (the watcher then rescans).
    func takeLostEvents() -> Bool {
        lostEvents.exchange(false, ordering: .acquiringAndReleasing)
    }

    /// Opens inotify; nil when the kernel refuses (then the watcher falls back to polling).
    init?() {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        descriptor = fd
    }

    /// Adds (or updates) a watch on a folder; returns its watch descriptor or the errno.
    func watch(_ path: String) -> Result<Int32, Errno> {
        let wd = inotify_add_watch(descriptor, FileSystemPath.bytes(path), Self.folderMask | UInt32(IN_ONLYDIR))
        return wd >= 0 ? .success(wd) : .failure(Errno(code: errno))
    }

    func unwatch(_ wd: Int32) { _ = inotify_rm_watch(descriptor, wd) }

    /// Starts the reader thread; the stream ends after `stop()`.
    ///
    /// When the watcher falls behind by more than `bufferLimit` reads, the oldest are dropped
    /// and `takeLostEvents()` says so, so the watcher rescans rather than missing files.
    func inputs(tickInterval: Duration, bufferLimit: Int = 4096) -> AsyncStream<WatcherInput> {
        let (stream, continuation) = AsyncStream.makeStream(of: WatcherInput.self, bufferingPolicy: .bufferingNewest(bufferLimit))
        let milliseconds = Int32(tickInterval.components.seconds * 1000 + tickInterval.components.attoseconds / 1_000_000_000_000_000)
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            var lastTick = ContinuousClock.now
            while !stopped.load(ordering: .acquiring) {
                var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                let ready = poll(&poller, 1, milliseconds)
                if ready > 0 {
                    let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                    if count > 0, case .dropped = continuation.yield(.events(Self.decode(buffer[..<count]))) {
                        // Sticky, outside the buffer: a marker in it could be pushed out in turn.
                        lostEvents.store(true, ordering: .releasing)
                    }
                }
                if ContinuousClock.now - lastTick >= tickInterval {
                    lastTick = .now
                    continuation.yield(.tick)
                }
            }
            continuation.finish()
        }
        return stream
    }

    func stop() {
        stopped.store(true, ordering: .releasing)
    }

    deinit { close(descriptor) }

    /// Splits a read into events: a 16-byte header (wd, mask, cookie, len) and a NUL-padded name.
    static func decode(_ bytes: ArraySlice<UInt8>) -> [InotifyEvent] {
        var events: [InotifyEvent] = []
        var offset = bytes.startIndex
        func word(_ at: Int) -> UInt32 {
            UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
        }
        while offset + 16 <= bytes.endIndex {
            let length = Int(word(offset + 12))
            guard offset + 16 + length <= bytes.endIndex else { break }
            let nameBytes = bytes[(offset + 16)..<(offset + 16 + length)].prefix { $0 != 0 }
            events.append(
                InotifyEvent(
                    watch: Int32(bitPattern: word(offset)), mask: word(offset + 4), cookie: word(offset + 8),
                    name: InboxPath.escapedName(nameBytes)))
            offset += 16 + length
        }
        return events
    }
}

/// An `errno` value with its text.
struct Errno: Error, CustomStringConvertible {
    var code: Int32
    var description: String { String(cString: strerror(code)) }
}
