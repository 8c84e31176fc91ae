#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// Files dropped into a running daemon's inbox end as recordings, exactly once.
@Suite("Ingestion end to end", .blocksThreads, .serialized)
struct IngestionEndToEndTests {
    static let config = """
        [watcher]
        settle_seconds = 0.3
        [jobs]
        workers = 2
        lease_seconds = 5
        """

    /// A small, valid, distinct WAV file (8 kHz mono 16-bit, 0.1–0.5 s).
    static func wav(seed: Int) -> Data {
        let samples = 800 + (seed % 5) * 800
        var data = Data()
        func append32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        func append16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        data.append(contentsOf: Array("RIFF".utf8)); append32(UInt32(36 + samples * 2)); data.append(contentsOf: Array("WAVE".utf8))
        data.append(contentsOf: Array("fmt ".utf8)); append32(16); append16(1); append16(1); append32(8000); append32(16000); append16(2); append16(16)
        data.append(contentsOf: Array("data".utf8)); append32(UInt32(samples * 2))
        var state = UInt32(truncatingIfNeeded: seed &* 2_654_435_761 &+ 1)
        for _ in 0..<samples {
            state = state &* 1_103_515_245 &+ 12345
            append16(UInt16(truncatingIfNeeded: state >> 16))
        }
        return data
    }

    /// All recordings, following cursors.
    static func recordings(_ daemon: TestDaemon) throws -> [Recording] {
        let client = try daemon.client()
        var all: [Recording] = []
        var cursor: String?
        repeat {
            let page = try client.call(StenoMethods.recordingsList, RecordingListParams(cursor: cursor, limit: 1000))
            all += page.items
            cursor = page.nextCursor
        } while cursor != nil
        return all
    }

    /// Waits (bounded) until the recordings satisfy `done`.
    static func waitForRecordings(_ daemon: TestDaemon, timeout: TimeInterval = 120, _ done: ([Recording]) -> Bool) throws -> [Recording] {
        let deadline = Date().addingTimeInterval(timeout)
        var last: [Recording] = []
        while Date() < deadline {
            last = try recordings(daemon)
            if done(last) { return last }
            usleep(200_000)
        }
        return last
    }

    @Test func fiveHundredFilesDroppedEveryWayEndInTheRightState() throws {
        let daemon = try TestDaemon(config: Self.config)
        _ = try daemon.client().call(StenoMethods.usersAdd, UserAddParams(name: "alice"))
        let inbox = daemon.inboxDirectory + "/alice"
        let staging = daemon.root + "/staging"
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true)

        // 470 written in place, 5 by cp(1), 5 by mv(1) from another file system (CREATE +
        // CLOSE_WRITE, not MOVED_TO), 10 renamed in from the same one, 5 in a new subfolder.
        for index in 0..<470 { try Self.wav(seed: index).write(to: URL(fileURLWithPath: "\(inbox)/copy-\(index).wav")) }
        let elsewhere = try Self.otherFileSystemFolder(than: daemon.root)
        defer { try? FileManager.default.removeItem(atPath: elsewhere) }
        for index in 470..<480 { try Self.wav(seed: index).write(to: URL(fileURLWithPath: "\(elsewhere)/tool-\(index).wav")) }
        let copied = (470..<475).map { "\(elsewhere)/tool-\($0).wav" }
        let moved = (475..<480).map { "\(elsewhere)/tool-\($0).wav" }
        #expect(try runCommand("/bin/cp", copied + [inbox + "/"]).status == 0)
        #expect(try runCommand("/bin/mv", moved + [inbox + "/"]).status == 0)
        for index in 480..<490 {
            try Self.wav(seed: index).write(to: URL(fileURLWithPath: "\(staging)/moved-\(index).wav"))
            #expect(rename("\(staging)/moved-\(index).wav", "\(inbox)/moved-\(index).wav") == 0)
        }
        try FileManager.default.createDirectory(atPath: inbox + "/2026/11", withIntermediateDirectories: true)
        for index in 490..<495 { try Self.wav(seed: index).write(to: URL(fileURLWithPath: "\(inbox)/2026/11/nested-\(index).wav")) }
        // One written slowly over more than 5 s, with pauses longer than the settle interval.
        let slowPath = inbox + "/slow.wav"
        _ = FileManager.default.createFile(atPath: slowPath, contents: nil)
        let slow = try #require(FileHandle(forWritingAtPath: slowPath))
        let slowContent = Self.wav(seed: 495)
        let chunk = slowContent.count / 6 + 1
        for part in 0..<6 {
            slow.write(slowContent.subdata(in: min(slowContent.count, part * chunk)..<min(slowContent.count, (part + 1) * chunk)))
            usleep(900_000)
        }
        try slow.close()
        // The same content dropped twice under two names.
        try Self.wav(seed: 496).write(to: URL(fileURLWithPath: "\(inbox)/twice-a.wav"))
        try Self.wav(seed: 496).write(to: URL(fileURLWithPath: "\(inbox)/twice-b.wav"))
        // Litter that must be ignored.
        try Data("x".utf8).write(to: URL(fileURLWithPath: "\(inbox)/.DS_Store"))
        try Data("x".utf8).write(to: URL(fileURLWithPath: "\(inbox)/partial.wav.part"))

        let distinct = 497  // 0..<496 plus the shared 496
        // The second name of the shared content joins its recording after the count is reached:
        // wait for that too, not only for the count.
        var recordings = try Self.waitForRecordings(daemon) {
            $0.count == distinct && $0.allSatisfy { $0.status == .ready } && $0.contains { $0.paths.count == 2 }
        }
        #expect(recordings.count == distinct)
        #expect(recordings.allSatisfy { $0.status == .ready && $0.ownerName == "alice" })
        #expect(recordings.first { $0.paths.count == 2 }.map { Set($0.paths.map(\.path)) } == ["alice/twice-a.wav", "alice/twice-b.wav"])
        let slowRecording = recordings.first { $0.paths.contains { $0.path == "alice/slow.wav" } }
        #expect(slowRecording?.size == Int64(slowContent.count), "the slow file is read only once complete")

        // A rename, and a delete.
        #expect(rename("\(inbox)/copy-0.wav", "\(inbox)/renamed-0.wav") == 0)
        try FileManager.default.removeItem(atPath: "\(inbox)/copy-1.wav")
        recordings = try Self.waitForRecordings(daemon, timeout: 30) { all in
            all.contains { $0.paths == [RecordingPath(path: "alice/renamed-0.wav", isPresent: true)] }
                && all.contains { $0.status == .missing }
        }
        #expect(recordings.count == distinct, "a rename makes no new recording")
        #expect(recordings.filter { $0.status == .missing }.map { $0.paths.map(\.path) } == [["alice/copy-1.wav"]])
        let jobs = try daemon.client().call(StenoMethods.jobsList, JobListParams(state: .running, limit: 10))
        #expect(jobs.items.isEmpty)
    }

    /// A fresh folder on another file system than `path` (/dev/shm when it is one), so
    /// mv(1) copies instead of renaming; on the same one when there is no other.
    static func otherFileSystemFolder(than path: String) throws -> String {
        var here = stat(), shm = stat()
        let base = stat(path, &here) == 0 && stat("/dev/shm", &shm) == 0 && here.st_dev != shm.st_dev ? "/dev/shm" : path
        let folder = base + "/steno-elsewhere-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func killNineDuringIngestionLosesNothingAndDuplicatesNothing() throws {
        let daemon = try TestDaemon(config: Self.config)
        _ = try daemon.client().call(StenoMethods.usersAdd, UserAddParams(name: "bob"))
        let inbox = daemon.inboxDirectory + "/bob"
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        let count = 500
        for index in 0..<count { try Self.wav(seed: 10_000 + index).write(to: URL(fileURLWithPath: "\(inbox)/file-\(index).wav")) }
        // Kill the daemon at varying moments while it ingests, and start it again each time.
        for round in 0..<5 {
            usleep(useconds_t(300_000 + round * 170_000))
            daemon.stop(signal: SIGKILL)
            try daemon.start()
        }
        let recordings = try Self.waitForRecordings(daemon, timeout: 180) { $0.count >= count && $0.allSatisfy { $0.status == .ready } }
        #expect(recordings.count == count, "one recording per file, no duplicates")
        #expect(Set(recordings.compactMap(\.contentHash)).count == count)
        #expect(recordings.allSatisfy { $0.status == .ready && $0.paths.count == 1 })
        // Nothing is left running or queued once everything is in.
        let deadline = Date().addingTimeInterval(30)
        var live = 1
        while live > 0 && Date() < deadline {
            let client = try daemon.client()
            live = try [JobState.running, .queued, .failed].map { state in
                try client.call(StenoMethods.jobsList, JobListParams(state: state, limit: 10)).items.count
            }.reduce(0, +)
            if live > 0 { usleep(200_000) }
        }
        #expect(live == 0)
    }
}
