#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import Synchronization
import StenoTesting
import Testing

@testable import StenoService

/// Collects what the watcher reports: its changes and, in the same order, its states.
final class ChangeLog: Sendable {
    enum Entry: Sendable, Hashable {
        case change(InboxChange)
        case state(InboxWatcherState)
    }

    private let entries = Mutex<[Entry]>([])
    func append(_ change: InboxChange) { entries.withLock { $0.append(.change(change)) } }
    func append(_ state: InboxWatcherState) { entries.withLock { $0.append(.state(state)) } }
    var all: [InboxChange] {
        entries.withLock { $0.compactMap { if case .change(let change) = $0 { change } else { nil } } }
    }

    /// Waits (bounded) until `predicate` holds.
    func wait(timeout: Duration = .seconds(10), until predicate: ([InboxChange]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if predicate(all) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return predicate(all)
    }

    /// Waits (bounded) until the watcher has said it is ready.
    func waitUntilReady(timeout: Duration = .seconds(10)) async -> Bool {
        await waitForEntries(timeout: timeout) { $0.contains(.state(.ready)) }
    }

    /// Waits (bounded) until the watcher's last word is that it is idle: everything it saw has
    /// been reported, so nothing more comes without a new change on disk.
    func waitUntilQuiet(timeout: Duration = .seconds(10)) async -> Bool {
        await waitForEntries(timeout: timeout) { $0.last == .state(.idle) }
    }

    /// A place in the log, to wait for what comes after it.
    func mark() -> Int { entries.withLock { $0.count } }

    /// Waits (bounded) until the watcher, after `mark`, has said it is idle again.
    func waitUntilQuiet(after mark: Int, timeout: Duration = .seconds(10)) async -> Bool {
        await waitForEntries(timeout: timeout) { $0.dropFirst(mark).contains(.state(.idle)) && $0.last == .state(.idle) }
    }

    private func waitForEntries(timeout: Duration, _ predicate: ([Entry]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if entries.withLock({ predicate($0) }) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return entries.withLock { predicate($0) }
    }
}

@Suite("Inbox watcher", .serialized)
struct InboxWatcherTests {
    let inbox: String = {
        let path = NSTemporaryDirectory() + "steno-watch-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path + "/alice", withIntermediateDirectories: true)
        return path
    }()

    /// Starts a watcher and waits until it is ready (unless `firstScan` holds its first scan).
    func start(
        pollingOnly: Bool = false, known: [String: FileSignature] = [:], bufferLimit: Int = 4096,
        firstScan: FirstScanGate? = nil, settle: Duration = .milliseconds(400)
    ) async -> (Task<Void, any Error>, ChangeLog) {
        var settings = InboxWatcherSettings()
        settings.settleInterval = settle
        settings.pollingOnly = pollingOnly
        settings.pollInterval = .milliseconds(300)
        let log = ChangeLog()
        let watcher = InboxWatcher(
            inbox: inbox, settings: settings, logger: Logger(label: "test"), bufferLimit: bufferLimit,
            knownPaths: {
                // A slow first catalog read keeps the loop busy while events pile up.
                await firstScan?.pass()
                return known
            },
            onChange: { log.append($0) }, onState: { log.append($0) })
        // Its own thread: the loop must progress while parallel tests block the shared pool.
        let executor = DedicatedTaskExecutor()
        let task = Task(executorPreference: executor) {
            withExtendedLifetime(executor) {}
            try await watcher.run()
        }
        if firstScan == nil { #expect(await log.waitUntilReady(), "the watcher never said it was ready") }
        return (task, log)
    }

    func write(_ path: String, _ text: String = "data") throws {
        try text.write(toFile: inbox + "/" + path, atomically: false, encoding: .utf8)
    }

    @Test func copiedMovedAndNestedFilesSettleOnceAndLitterIsIgnored() async throws {
        defer { try? FileManager.default.removeItem(atPath: inbox) }
        let (task, log) = await start()
        defer { task.cancel() }
        try write("alice/a.wav")
        try write("alice/.DS_Store")
        try write("alice/b.m4a.part")
        let outside = NSTemporaryDirectory() + "steno-outside-\(getpid()).wav"
        try "moved".write(toFile: outside, atomically: false, encoding: .utf8)
        _ = rename(outside, inbox + "/alice/moved.wav")
        try FileManager.default.createDirectory(atPath: inbox + "/bob/2026", withIntermediateDirectories: true)
        try write("bob/2026/nested.mp3")
        let all: Set<InboxChange> = [.settled("alice/a.wav"), .settled("alice/moved.wav"), .settled("bob/2026/nested.mp3")]
        #expect(await log.wait { Set($0).isSuperset(of: all) }, "\(log.all)")
        #expect(await log.waitUntilQuiet())
        #expect(log.all.count == 3, "each file once, litter ignored: \(log.all)")
    }

    /// A rescan between a file's report and its ingest (the catalog does not know it yet)
    /// found it again and reported it twice: seen under load, when a rescan came after the
    /// files had settled.
    @Test func aRescanBeforeTheCatalogCatchesUpReportsNothingTwice() async throws {
        defer { try? FileManager.default.removeItem(atPath: inbox) }
        let (task, log) = await start(known: [:])
        defer { task.cancel() }
        try write("alice/a.wav")
        try write("alice/a.json", #"{"title": "Standup"}"#)
        let both: Set<InboxChange> = [.settled("alice/a.wav"), .settled("alice/a.json")]
        #expect(await log.wait { Set($0) == both }, "\(log.all)")
        // A folder moved out: every catalogued path below it may be gone, so the watcher rescans.
        let outside = NSTemporaryDirectory() + "steno-outside-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: outside) }
        try FileManager.default.createDirectory(atPath: inbox + "/carol/2026/11", withIntermediateDirectories: true)
        #expect(await log.waitUntilQuiet())
        let beforeMove = log.mark()
        #expect(rename(inbox + "/carol", outside) == 0)
        // The move makes the watcher busy (a rescan) and then idle again: wait for that.
        #expect(await log.waitUntilQuiet(after: beforeMove))
        #expect(log.all.count == 2, "each file once: \(log.all)")
    }

    @Test func aFileMovedInLongAfterItWasWrittenNeedsNoSettleWait() async throws {
        defer { try? FileManager.default.removeItem(atPath: inbox) }
        // A settle interval long enough that a loaded machine cannot blur "at once" and "after
        // settling": what is checked is which file waited for it, not how fast the other came.
        let (task, log) = await start(settle: .seconds(10))
        defer { task.cancel() }
        // As sync tools deliver: written elsewhere an hour ago, renamed into the inbox.
        let outside = NSTemporaryDirectory() + "steno-old-\(getpid()).wav"
        try "recorded an hour ago".write(toFile: outside, atomically: false, encoding: .utf8)
        var times = [timeval(tv_sec: time(nil) - 3600, tv_usec: 0), timeval(tv_sec: time(nil) - 3600, tv_usec: 0)]
        #expect(utimes(outside, &times) == 0)
        let dropped = ContinuousClock.now
        try write("alice/fresh.wav")
        _ = rename(outside, inbox + "/alice/old.wav")
        #expect(await log.wait(timeout: .seconds(8)) { $0.contains(.settled("alice/old.wav")) }, "\(log.all)")
        #expect(ContinuousClock.now - dropped < .seconds(10), "the old file did not wait for the settle interval")
        // The file written just now still waits for the whole settle interval.
        #expect(!log.all.contains(.settled("alice/fresh.wav")))
        #expect(await log.wait(timeout: .seconds(30)) { $0.contains(.settled("alice/fresh.wav")) }, "\(log.all)")
        #expect(ContinuousClock.now - dropped >= .seconds(10))
    }

    @Test func filesWrittenTheMomentTheirFolderAppearsAreAllReported() async throws {
        defer { try? FileManager.default.removeItem(atPath: inbox) }
        let (task, log) = await start()
        defer { task.cancel() }
        // No pause between the folder and its files: whatever lands before the watch exists must
        // be found by the folder's scan, whatever lands after must have events (no rescan for 600 s).
        for round in 0..<5 {
            try FileManager.default.createDirectory(atPath: inbox + "/drop\(round)", withIntermediateDirectories: true)
            for index in 0..<100 { try write("drop\(round)/f\(index).wav") }
        }
        let all = Set((0..<5).flatMap { round in (0..<100).map { InboxChange.settled("drop\(round)/f\($0).wav") } })
        #expect(await log.wait { Set($0).isSuperset(of: all) }, "missing: \(all.subtracting(log.all).count)")
    }

    /// A writer that pauses longer than the settle interval, file still open: nothing settles
    /// until it closes. The pauses are measured by probes: a file written and closed after each
    /// write settles only a settle interval after it, so once it is reported, the watcher has
    /// looked at the open file for at least that long.
    @Test func slowWriteSettlesOnlyAfterClose() async throws {
        defer { try? FileManager.default.removeItem(atPath: inbox) }
        let (task, log) = await start()
        defer { task.cancel() }
        // Created by open(2), not FileManager: that writes a temporary file and renames it in,
        // which the watcher rightly takes for a finished (empty) file.
        let descriptor = open(inbox + "/alice/slow.wav", O_CREAT | O_EXCL | O_WRONLY, 0o644)
        try #require(descriptor >= 0, "open: \(String(cString: strerror(errno)))")
        var closed = false
        defer { if !closed { close(descriptor) } }
        let chunk = [UInt8](repeating: 1, count: 1000)
        for round in 0..<3 {
            #expect(chunk.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) } == chunk.count)
            try write("alice/probe-\(round).wav")
            #expect(await log.wait { $0.contains(.settled("alice/probe-\(round).wav")) }, "\(log.all)")
        }
        #expect(!log.all.contains(.settled("alice/slow.wav")), "nothing settles while the writer holds the file open")
        close(descriptor)
        closed = true
        #expect(await log.wait { $0.contains(.settled("alice/slow.wav")) }, "\(log.all)")
    }

    @Test func deletionsAndRenamesAreReported() async throws {
        defer { try? FileManager.default.removeItem(atPath: inbox) }
        try write("alice/old.wav")
        let signature = try #require(FileSignature(path: inbox + "/alice/old.wav"))
        let (task, log) = await start(known: ["alice/old.wav": signature])
        defer { task.cancel() }
        _ = rename(inbox + "/alice/old.wav", inbox + "/alice/new.wav")
        #expect(await log.wait { $0.contains(.removed("alice/old.wav")) && $0.contains(.settled("alice/new.wav")) }, "\(log.all)")
        try FileManager.default.removeItem(atPath: inbox + "/alice/new.wav")
        #expect(await log.wait { $0.contains(.removed("alice/new.wav")) }, "\(log.all)")
    }

    @Test func startupRescanFindsNewChangedAndVanishedFiles() async throws {
        defer { try? FileManager.default.removeItem(atPath: inbox) }
        try write("alice/unchanged.wav")
        try write("alice/new.wav")
        try write("alice/note.json", "{}")
        let unchanged = try #require(FileSignature(path: inbox + "/alice/unchanged.wav"))
        let (task, log) = await start(known: ["alice/unchanged.wav": unchanged, "alice/vanished.wav": FileSignature(size: 1, modifiedMilliseconds: 1)])
        defer { task.cancel() }
        let expected: Set<InboxChange> = [.settled("alice/new.wav"), .settled("alice/note.json"), .removed("alice/vanished.wav")]
        #expect(await log.wait { Set($0) == expected }, "\(log.all)")
    }

    @Test func eventsDroppedByASlowLoopAreRecoveredByARescan() async throws {
        defer { try? FileManager.default.removeItem(atPath: inbox) }
        // A one-read buffer while the loop is stuck in its first rescan: files arriving one
        // by one overflow it, and only the overflow marker makes the watcher look again.
        let gate = FirstScanGate()
        let (task, log) = await start(bufferLimit: 1, firstScan: gate)
        defer { task.cancel() }
        #expect(await gate.waitUntilReached(), "the watcher never began its first scan")
        for index in 0..<20 {
            try write("alice/burst-\(index).wav", "content \(index)")
            // The writer pauses, so each file's events come in a read of their own.
            try await Task.sleep(for: .milliseconds(40))
        }
        gate.open()
        let expected = Set((0..<20).map { InboxChange.settled("alice/burst-\($0).wav") })
        #expect(await log.wait(timeout: .seconds(15)) { Set($0).isSuperset(of: expected) }, "\(Set(log.all).intersection(expected).count) of 20")
    }

    @Test func pollingModeFindsFilesWithoutInotify() async throws {
        defer { try? FileManager.default.removeItem(atPath: inbox) }
        let (task, log) = await start(pollingOnly: true)
        defer { task.cancel() }
        try write("alice/polled.flac")
        #expect(await log.wait { $0.contains(.settled("alice/polled.flac")) }, "\(log.all)")
    }
}

/// Holds the watcher's first catalog read until the test opens it, telling when it is reached.
final class FirstScanGate: Sendable {
    private let state = Mutex<(reached: Bool, open: Bool)>((false, false))

    /// Called from the watcher's catalog read: waits (bounded) until the gate opens.
    func pass() async {
        state.withLock { $0.reached = true }
        for _ in 0..<3_000 where !state.withLock({ $0.open }) { try? await Task.sleep(for: .milliseconds(10)) }
    }

    func open() { state.withLock { $0.open = true } }

    func waitUntilReached() async -> Bool {
        for _ in 0..<1_000 where !state.withLock({ $0.reached }) { try? await Task.sleep(for: .milliseconds(10)) }
        return state.withLock { $0.reached }
    }
}

@Suite("Settle tracker")
struct SettleTrackerTests {
    @Test func changesRestartTheClock() {
        var tracker = SettleTracker(interval: .seconds(2))
        let start = ContinuousClock.now
        var size: Int64 = 10
        tracker.noteClosed("a", signature: FileSignature(size: size, modifiedMilliseconds: 1), now: start)
        #expect(tracker.settled(now: start + .seconds(1)) { _ in FileSignature(size: size, modifiedMilliseconds: 1) }.isEmpty)
        size = 20
        #expect(tracker.settled(now: start + .seconds(2)) { _ in FileSignature(size: size, modifiedMilliseconds: 2) }.isEmpty)
        #expect(tracker.settled(now: start + .seconds(4)) { _ in FileSignature(size: size, modifiedMilliseconds: 2) } == ["a"])
        #expect(tracker.pendingCount == 0)
    }

    @Test func theTimeSinceTheMtimeCountsTowardsTheInterval() {
        var tracker = SettleTracker(interval: .seconds(2))
        let start = ContinuousClock.now
        let old = FileSignature(size: 10, modifiedMilliseconds: 1)
        tracker.noteClosed("old", signature: old, now: start, age: .seconds(3600))
        tracker.noteClosed("half", signature: old, now: start, age: .seconds(1))
        tracker.noteClosed("future", signature: old, now: start, age: .seconds(-50))
        #expect(tracker.settled(now: start) { _ in old } == ["old"])
        #expect(tracker.settled(now: start + .milliseconds(900)) { _ in old }.isEmpty)
        #expect(tracker.settled(now: start + .seconds(1)) { _ in old } == ["half"])
        #expect(tracker.settled(now: start + .seconds(2)) { _ in old } == ["future"])
        // An old file that changes after it was noted starts again, like any other.
        tracker.noteClosed("moved", signature: old, now: start, age: .seconds(3600))
        #expect(tracker.settled(now: start) { _ in FileSignature(size: 11, modifiedMilliseconds: 9) }.isEmpty)
        #expect(tracker.settled(now: start + .seconds(1)) { _ in FileSignature(size: 11, modifiedMilliseconds: 9) }.isEmpty)
    }

    @Test func afterLostEventsAFileThoughtMidWriteSettles() {
        var tracker = SettleTracker(interval: .seconds(1), abandonedWriteTimeout: .seconds(600))
        let start = ContinuousClock.now
        let signature = FileSignature(size: 5, modifiedMilliseconds: 5)
        tracker.noteWriting("c", now: start)  // its CLOSE_WRITE was among the lost events
        tracker.forgetWriters()
        tracker.noteFound("c", signature: signature, now: start)
        #expect(tracker.settled(now: start + .seconds(2)) { _ in signature } == ["c"])
    }

    @Test func rescanDoesNotTakeAFileBeingWritten() {
        var tracker = SettleTracker(interval: .seconds(1), abandonedWriteTimeout: .seconds(60))
        let start = ContinuousClock.now
        tracker.noteWriting("b", now: start)
        tracker.noteFound("b", signature: FileSignature(size: 1, modifiedMilliseconds: 1), now: start)
        #expect(tracker.settled(now: start + .seconds(5)) { _ in FileSignature(size: 1, modifiedMilliseconds: 1) }.isEmpty)
        // An abandoned writer is forgotten eventually.
        _ = tracker.settled(now: start + .seconds(61)) { _ in FileSignature(size: 1, modifiedMilliseconds: 1) }
        tracker.noteFound("b", signature: FileSignature(size: 1, modifiedMilliseconds: 1), now: start + .seconds(61))
        #expect(tracker.settled(now: start + .seconds(63)) { _ in FileSignature(size: 1, modifiedMilliseconds: 1) } == ["b"])
    }
}
