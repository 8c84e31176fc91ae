import Foundation
import Logging
import ServiceLifecycle
import StenoCore

/// A change under the inbox worth ingesting.
enum InboxChange: Sendable, Hashable {
    /// A complete file (recording, sidecar or transcript) to read.
    case settled(String)
    /// A file that is gone.
    case removed(String)
}

/// What the watcher is doing, for whoever waits on it (tests, a readiness probe).
enum InboxWatcherState: Sendable, Hashable {
    /// The first scan is done and every folder is watched: changes from now on are seen.
    case ready
    /// Nothing waits to settle, to be written or to be rescanned: every change seen so far
    /// has been reported. Told each time the watcher becomes so.
    case idle
}

/// How the watcher watches.
public struct InboxWatcherSettings: Sendable, Hashable {
    /// How long size and mtime must stay unchanged before a file is read.
    public var settleInterval: Duration = .seconds(2)
    /// A full rescan reconciles what events missed (network shares, overflow), this often.
    public var rescanInterval: Duration = .seconds(600)
    /// No inotify (NFS, SMB): rescan every `pollInterval` instead.
    public var pollingOnly = false
    public var pollInterval: Duration = .seconds(10)
    /// Daemons sharing a catalog watch an inbox one at a time: the watching one renews its lease
    /// every third of this; when it dies, another takes over within this long.
    public var leaseDuration: Duration = .seconds(30)

    public init() {}
}

/// Watches the inbox tree with inotify (recursively; new folders are watched as they
/// appear), settles files, reconciles with periodic rescans, and reports changes.
///
/// All state lives in one loop fed by the reader thread, so there is nothing to lock.
final class InboxWatcher: Service, Sendable {
    private let inbox: String
    private let settings: InboxWatcherSettings
    private let knownPaths: @Sendable () async throws -> [String: FileSignature]
    /// Receives the changes found together (one tick's settled files, one read of events);
    /// returns false when it could not take them (queueing failed), so they are offered again.
    private let onChanges: @Sendable ([InboxChange]) async -> Bool
    private let logger: Logger
    /// Reads of events the loop may fall behind by before it rescans instead.
    private let bufferLimit: Int
    /// Told when the watcher is ready and each time it becomes idle.
    private let onState: @Sendable (InboxWatcherState) -> Void

    /// A watcher reporting the changes found together in one call, so they can be queued in
    /// one transaction.
    init(
        inbox: String, settings: InboxWatcherSettings, logger: Logger, bufferLimit: Int = 4096,
        knownPaths: @escaping @Sendable () async throws -> [String: FileSignature],
        onChanges: @escaping @Sendable ([InboxChange]) async -> Bool,
        onState: @escaping @Sendable (InboxWatcherState) -> Void = { _ in }
    ) {
        self.onState = onState
        self.inbox = inbox
        self.settings = settings
        self.logger = logger
        self.knownPaths = knownPaths
        self.onChanges = onChanges
        self.bufferLimit = bufferLimit
    }

    /// A watcher reporting changes one at a time.
    convenience init(
        inbox: String, settings: InboxWatcherSettings, logger: Logger, bufferLimit: Int = 4096,
        knownPaths: @escaping @Sendable () async throws -> [String: FileSignature],
        onChange: @escaping @Sendable (InboxChange) async -> Void,
        onState: @escaping @Sendable (InboxWatcherState) -> Void = { _ in }
    ) {
        self.init(
            inbox: inbox, settings: settings, logger: logger, bufferLimit: bufferLimit, knownPaths: knownPaths,
            onChanges: { changes in
                for change in changes { await onChange(change) }
                return true
            }, onState: onState)
    }

    /// How often the loop looks for settled files: a fifth of the settle interval, so a file
    /// is read at most 20% later than it settled, between 10 and 250 ms.
    var tickInterval: Duration {
        min(.milliseconds(250), max(.milliseconds(10), settings.settleInterval / 5))
    }

    func run() async throws {
        var state = WatchState(tracker: SettleTracker(interval: settings.settleInterval))
        let reader = settings.pollingOnly ? nil : InotifyReader()
        if reader == nil && !settings.pollingOnly {
            logger.warning("inotify is not available; polling the inbox every \(settings.pollInterval)")
        }
        let tick = tickInterval
        // Both sources are threads of their own and the loop reads them directly: a helper
        // task on the shared pool (a merge for graceful shutdown, a sleeping timer) stalled
        // the loop for minutes whenever other work held that pool's threads.
        let ticks = reader == nil ? WatcherTicks() : nil
        let inputs = reader?.inputs(tickInterval: tick, bufferLimit: bufferLimit) ?? ticks?.inputs(every: tick) ?? AsyncStream { $0.finish() }
        defer {
            reader?.stop()
            ticks?.stop()
        }
        let rescanEvery = reader == nil ? settings.pollInterval : settings.rescanInterval
        await rescan(&state, reader: reader, firstTime: true)
        var nextRescan = ContinuousClock.now + rescanEvery
        logger.info("watching \(inbox)", metadata: ["mode": "\(reader == nil ? "polling" : "inotify")"])
        onState(.ready)
        var wasIdle = false

        await withGracefulShutdownHandler {
            for await input in inputs {
                if reader?.takeLostEvents() == true {
                    logger.warning("the watcher fell behind and dropped events; rescanning the inbox")
                    state.eventsLost = true
                }
                switch input {
                case .events(let events):
                    let removed = handle(events, &state, reader: reader)
                    await deliver(removed, &state)
                    // Files moved in long after they were written have settled already; they are
                    // still reported at the next tick, with the others of the burst: reporting
                    // after every read of events made jobs of a few files each (2,000 moved
                    // files: 0.8-1.0 s instead of 0.25-0.3 s).
                case .tick:
                    let now = ContinuousClock.now
                    await reportSettled(&state)
                    if state.needsRescan || state.eventsLost || now >= nextRescan || state.retryAt.map({ now >= $0 }) == true
                        || (state.inboxGone && Inbox.exists(inbox))
                    {
                        await rescan(&state, reader: reader, firstTime: false)
                        nextRescan = .now + rescanEvery
                    }
                }
                let idle = state.isIdle
                if idle, !wasIdle { onState(.idle) }
                wasIdle = idle
            }
        } onGracefulShutdown: {
            reader?.stop()
            ticks?.stop()
        }
    }

    /// Reports the files that have settled.
    private func reportSettled(_ state: inout WatchState) async {
        let inbox = self.inbox
        let settled = state.tracker.settled(now: .now, signature: { FileSignature(path: inbox + "/" + $0) })
        await deliver(settled.map(InboxChange.settled), &state)
    }

    /// The longest wait before changes that could not be handed over are offered again.
    static let longestRetryDelay: Duration = .seconds(60)

    /// Hands changes over; when they are not taken (queueing failed: a full disk, a busy
    /// catalog), forgets having reported them and rescans soon, so they are offered again in
    /// seconds rather than at the next periodic rescan (backing off while it keeps failing).
    private func deliver(_ changes: [InboxChange], _ state: inout WatchState) async {
        guard !changes.isEmpty else { return }
        if await onChanges(changes) {
            state.retryDelay = .zero
            return
        }
        for case .settled(let path) in changes { state.tracker.forgetReported(path) }
        state.retryDelay = min(max(state.retryDelay * 2, .seconds(1)), Self.longestRetryDelay)
        state.retryAt = .now + state.retryDelay
        logger.warning("\(changes.count) inbox change(s) could not be queued; looking again in \(state.retryDelay)")
    }

    /// How long `signature`'s file has been unchanged by its mtime, if the mtime can be trusted:
    /// not on the network shares polling is for, where the server's clock may differ from ours.
    private func age(of signature: FileSignature?, at now: Date) -> Duration {
        guard !settings.pollingOnly, let signature else { return .zero }
        return signature.age(at: now)
    }

    /// The watcher's memory.
    private struct WatchState {
        var tracker: SettleTracker
        /// inotify watch descriptor → folder relative to the inbox ("" for the inbox).
        var folders: [Int32: String] = [:]
        var needsRescan = false
        /// Events were lost: the next rescan must not trust what the tracker believes.
        var eventsLost = false
        /// The inbox folder itself is gone: rescan (and watch it again) as soon as it is back.
        var inboxGone = false
        /// Changes could not be handed over: rescan then.
        var retryAt: ContinuousClock.Instant?
        /// The wait before the last such rescan, doubled while handing over keeps failing.
        var retryDelay: Duration = .zero

        /// Nothing waits: every change seen so far has been reported.
        var isIdle: Bool { tracker.isEmpty && !needsRescan && !eventsLost && retryAt == nil }
    }

    /// Applies a read of events to the state; returns the files reported gone.
    private func handle(_ events: [InotifyEvent], _ state: inout WatchState, reader: InotifyReader?) -> [InboxChange] {
        let now = ContinuousClock.now
        let wallNow = Date()
        var removed: [InboxChange] = []
        for event in events {
            if event.has(IN_Q_OVERFLOW) {
                logger.warning("inotify queue overflowed; rescanning the inbox")
                state.eventsLost = true
                continue
            }
            if event.has(IN_IGNORED) {
                state.folders[event.watch] = nil
                continue
            }
            guard let folder = state.folders[event.watch] else { continue }
            if event.has(IN_DELETE_SELF) || event.has(IN_MOVE_SELF) {
                // Its watch is dead (or follows the folder elsewhere): the rescan watches
                // whatever is at its place now, the inbox itself once it is back.
                state.folders[event.watch] = nil
                if event.has(IN_MOVE_SELF) { reader?.unwatch(event.watch) }
                state.needsRescan = true
                continue
            }
            guard !event.name.isEmpty else { continue }
            let path = folder.isEmpty ? event.name : folder + "/" + event.name
            if event.isDirectory {
                if event.has(IN_CREATE) || event.has(IN_MOVED_TO), !InboxPath.isIgnoredComponent(event.name) {
                    // Each folder is watched just before it is listed: a file created after the
                    // watch exists has events, one created before it is listed.
                    let found = InboxScanner.scan(inbox: inbox, relativeFolder: path) { watch($0, &state, reader: reader) }
                    for (file, signature) in found.files {
                        state.tracker.noteFound(file, signature: signature, now: now, age: age(of: signature, at: wallNow))
                    }
                } else if event.has(IN_MOVED_FROM) || event.has(IN_DELETE) {
                    state.needsRescan = true  // every catalogued path below it is gone
                }
                continue
            }
            guard InboxPath.kind(of: path) != .ignored else { continue }
            if event.has(IN_CLOSE_WRITE) || event.has(IN_MOVED_TO) {
                let signature = FileSignature(path: inbox + "/" + path)
                state.tracker.noteClosed(path, signature: signature, now: now, age: age(of: signature, at: wallNow))
            } else if event.has(IN_CREATE) || event.has(IN_MODIFY) {
                state.tracker.noteWriting(path, now: now)
            } else if event.has(IN_DELETE) || event.has(IN_MOVED_FROM) {
                state.tracker.forget(path)
                removed.append(.removed(path))
            }
        }
        return removed
    }

    /// Watches `folder` (relative to the inbox). Watching a folder again is harmless: inotify
    /// answers with the same descriptor, now naming the folder's current path.
    private func watch(_ folder: String, _ state: inout WatchState, reader: InotifyReader?) {
        guard let reader else { return }
        switch reader.watch(folder.isEmpty ? inbox : inbox + "/" + folder) {
        case .success(let wd): state.folders[wd] = folder
        case .failure(let error):
            logger.warning("cannot watch \(folder.isEmpty ? inbox : folder): \(error); it is covered by rescans only")
        }
    }

    /// Walks the tree and compares it with the catalog: new or changed files become
    /// candidates, catalogued paths no longer on disk are reported removed.
    private func rescan(_ state: inout WatchState, reader: InotifyReader?, firstTime: Bool) async {
        state.needsRescan = false
        state.retryAt = nil
        let present = Inbox.exists(inbox)
        if present != !state.inboxGone {
            if present {
                logger.notice("the inbox is back; watching it again")
            } else {
                logger.warning("the inbox is gone (\(inbox)); watching for it to come back")
            }
        }
        state.inboxGone = !present
        if state.eventsLost {
            // A lost CLOSE_WRITE would leave a complete file marked as being written.
            state.tracker.forgetWriters()
            state.eventsLost = false
        }
        let now = ContinuousClock.now
        let wallNow = Date()
        let found = InboxScanner.scan(inbox: inbox) { watch($0, &state, reader: reader) }
        let known: [String: FileSignature]
        do {
            known = try await knownPaths()
        } catch {
            // Backing off: a catalog that is down fails at once, tick after tick.
            state.retryDelay = min(max(state.retryDelay * 2, .seconds(1)), Self.longestRetryDelay)
            state.retryAt = .now + state.retryDelay
            logger.error("rescan cannot read the catalog: \(error); looking again in \(state.retryDelay)")
            return
        }
        for (path, signature) in found.files {
            switch InboxPath.kind(of: path) {
            case .recording:
                if known[path] == signature {
                    state.tracker.forgetReported(path)
                } else if state.tracker.reported[path] != signature {
                    // (Reported but not catalogued yet: its ingest job is under way.)
                    state.tracker.noteFound(path, signature: signature, now: now, age: age(of: signature, at: wallNow))
                }
            case .sidecar, .transcript:
                // At start-up every companion is read again (cheap: unchanged recordings are
                // not re-hashed); later only those that changed since they were reported.
                if firstTime || state.tracker.reported[path] != signature {
                    state.tracker.noteFound(path, signature: signature, now: now, age: age(of: signature, at: wallNow))
                }
            case .ignored:
                continue
            }
        }
        var removed: [InboxChange] = []
        for path in known.keys.sorted() where found.files[path] == nil {
            state.tracker.forget(path)
            removed.append(.removed(path))
        }
        await deliver(removed, &state)
    }
}
