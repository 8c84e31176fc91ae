#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import Synchronization
import StenoTesting
import Testing

@testable import StenoService

/// The watcher recovers by itself, well before its periodic rescan: from its folders being
/// deleted and created again, and from changes it could not hand over (a full disk).
@Suite("Inbox watcher recovery", .serialized)
struct InboxWatcherRecoveryTests {
    let inbox: String = {
        let path = NSTemporaryDirectory() + "steno-recover-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path + "/alice", withIntermediateDirectories: true)
        return path
    }()

    /// Starts a watcher whose periodic rescan is far away; `accept` says whether a call's
    /// changes were taken (false: as if queueing them failed).
    func start(
        logs: CapturedLog, accept: @escaping @Sendable ([InboxChange]) -> Bool = { _ in true }
    ) async throws -> (Task<Void, any Error>, ChangeLog) {
        var settings = InboxWatcherSettings()
        settings.settleInterval = .milliseconds(200)
        settings.rescanInterval = .seconds(600)
        let log = ChangeLog()
        let watcher = InboxWatcher(
            inbox: inbox, settings: settings, logger: logs.logger, knownPaths: { [:] },
            onChanges: { changes in
                guard accept(changes) else { return false }
                for change in changes { log.append(change) }
                return true
            })
        let executor = DedicatedTaskExecutor()
        let task = Task(executorPreference: executor) {
            withExtendedLifetime(executor) {}
            try await watcher.run()
        }
        try await waitFor(logs, "watching")
        return (task, log)
    }

    /// Waits (bounded) for a log line containing `text`.
    func waitFor(_ logs: CapturedLog, _ text: String, timeout: Duration = .seconds(10)) async throws {
        let deadline = ContinuousClock.now + timeout
        while !logs.all.contains(where: { $0.message.contains(text) }) {
            guard ContinuousClock.now < deadline else { throw TestFailure("no log line with \"\(text)\"") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    func write(_ path: String) throws {
        try "data".write(toFile: inbox + "/" + path, atomically: false, encoding: .utf8)
    }

    @Test func aSubfolderDeletedAndCreatedAgainIsWatchedAgain() async throws {
        defer { try? FileManager.default.removeItem(atPath: inbox) }
        let logs = CapturedLog()
        let (task, log) = try await start(logs: logs)
        defer { task.cancel() }
        try write("alice/before.wav")
        #expect(await log.wait { $0.contains(.settled("alice/before.wav")) })
        // At once, and again after the removal was seen.
        try FileManager.default.removeItem(atPath: inbox + "/alice")
        try FileManager.default.createDirectory(atPath: inbox + "/alice", withIntermediateDirectories: false)
        try write("alice/quick.wav")
        #expect(await log.wait { $0.contains(.settled("alice/quick.wav")) }, "\(log.all)")
        try FileManager.default.removeItem(atPath: inbox + "/alice")
        #expect(await log.wait { $0.contains(.removed("alice/quick.wav")) })
        try FileManager.default.createDirectory(atPath: inbox + "/alice", withIntermediateDirectories: false)
        try write("alice/after.wav")
        #expect(await log.wait { $0.contains(.settled("alice/after.wav")) }, "\(log.all)")
    }

    @Test func theInboxDeletedAndCreatedAgainIsWatchedAgain() async throws {
        defer { try? FileManager.default.removeItem(atPath: inbox) }
        let logs = CapturedLog()
        let (task, log) = try await start(logs: logs)
        defer { task.cancel() }
        try FileManager.default.removeItem(atPath: inbox)
        try await waitFor(logs, "inbox is gone")
        try FileManager.default.createDirectory(atPath: inbox + "/bob", withIntermediateDirectories: true)
        try write("bob/after.wav")
        try write("root.wav")
        #expect(await log.wait { Set($0).isSuperset(of: [.settled("bob/after.wav"), .settled("root.wav")]) }, "\(log.all)")
    }

    @Test func changesThatCouldNotBeQueuedAreReportedAgainSoon() async throws {
        defer { try? FileManager.default.removeItem(atPath: inbox) }
        let logs = CapturedLog()
        let refusals = Mutex(1)
        let (task, log) = try await start(logs: logs) { _ in
            refusals.withLock { count in
                defer { count -= 1 }
                return count <= 0
            }
        }
        defer { task.cancel() }
        try write("alice/during-full-disk.wav")
        #expect(await log.wait { $0.contains(.settled("alice/during-full-disk.wav")) }, "\(log.all)")
    }
}
