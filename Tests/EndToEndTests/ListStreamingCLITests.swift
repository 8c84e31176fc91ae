import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// `steno … --all` writes JSON and CSV as pages arrive: a program reading the output gets the
/// first rows while the daemon has not yet been asked for the last page.
@Suite("steno --all streams its output", .blocksThreads, .serialized)
struct ListStreamingCLITests {
    /// A daemon double on a Unix socket answering `meetings.list`: the first page at once, the
    /// second (last) only once the test writes a line to `release`, a FIFO. It creates
    /// `askedPath` when the second page is asked for.
    final class HeldPagesDaemon {
        let root: String
        var socketPath: String { root + "/held.sock" }
        var releasePath: String { root + "/release" }
        var askedPath: String { socketPath + ".asked" }
        let process: ChildProcess
        private var released = false

        /// The script: one connection, one answer per request line; a request with a cursor
        /// waits for the FIFO to be written before it is answered.
        static let script = SocketDoubleScript.python(
            """
            release, first, last = args
            def answer(request):
                params = request.get("params") or {}
                if params.get("cursor") is None:
                    result = json.load(open(first))
                else:
                    open(sock_path + ".asked", "w").close()
                    with open(release) as gate: gate.readline()
                    result = json.load(open(last))
                return json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": result}).encode()
            """)

        init(first: Page<MeetingSummary>, last: Page<MeetingSummary>) throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("steno-held-\(UUID().uuidString.prefix(8))").path
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            let socketPath = root + "/held.sock", releasePath = root + "/release"
            guard mkfifo(releasePath, 0o600) == 0 else { throw TestDaemonError("mkfifo failed: errno \(errno)") }
            for (name, page) in [("first.json", first), ("last.json", last)] {
                try JSONValueEncoder().encode(page).serializedString.write(toFile: root + "/" + name, atomically: true, encoding: .utf8)
            }
            process = try ChildProcess(
                "/usr/bin/env", ["python3", "-c", Self.script, socketPath, releasePath, root + "/first.json", root + "/last.json"],
                standardError: .inherit)
            let ready = try poll(timeout: 120, { FileManager.default.fileExists(atPath: self.socketPath + ".ready") }, until: { $0 })
            guard ready else { throw TestDaemonError("the daemon double did not start") }
        }

        /// Lets the double answer the last page (once; opening the FIFO blocks until it reads).
        func release() {
            guard !released else { return }
            released = true
            if let gate = FileHandle(forWritingAtPath: releasePath) {
                gate.write(Data("go\n".utf8))
                try? gate.close()
            }
        }

        deinit {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            try? FileManager.default.removeItem(atPath: root)
        }
    }

    /// Output of a running process, read on a thread of its own as it comes.
    final class StreamedOutput: @unchecked Sendable {
        private let lock = NSCondition()
        private var data = Data()
        private var ended = false

        init(_ handle: FileHandle) {
            Thread.detachNewThread {
                while true {
                    let chunk = handle.availableData
                    self.lock.lock()
                    if chunk.isEmpty { self.ended = true } else { self.data.append(chunk) }
                    self.lock.broadcast()
                    self.lock.unlock()
                    if chunk.isEmpty { return }
                }
            }
        }

        /// Waits until the output holds `text` (true) or ends or the time is up (false).
        func wait(for text: String, timeout: TimeInterval) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            lock.lock()
            defer { lock.unlock() }
            while !String(decoding: data, as: UTF8.self).contains(text) {
                if ended || !lock.wait(until: deadline) { return String(decoding: data, as: UTF8.self).contains(text) }
            }
            return true
        }

        /// Everything once the output ended (waiting up to `timeout`).
        func whole(timeout: TimeInterval) -> String {
            let deadline = Date().addingTimeInterval(timeout)
            lock.lock()
            defer { lock.unlock() }
            while !ended && lock.wait(until: deadline) {}
            return String(decoding: data, as: UTF8.self)
        }
    }

    static func meetings(_ ids: ClosedRange<Int64>) -> [MeetingSummary] {
        ids.map { id in
            MeetingSummary(
                id: id, title: "Streamed \(id)", start: Date(timeIntervalSince1970: 1_780_000_000 + Double(id) * 3600),
                end: Date(timeIntervalSince1970: 1_780_001_800 + Double(id) * 3600), organizer: nil, attendeeCount: 0, recordings: [],
                location: nil, onlineMeetingURL: nil, isCancelled: false, isGone: false)
        }
    }

    /// Starts `steno meetings --all -o format` against the double, its output on a pipe.
    static func listAll(from double: HeldPagesDaemon, format: String) throws -> (ChildProcess, FileHandle) {
        var environment = ProcessInfo.processInfo.environment
        environment["STENO_SOCKET"] = nil
        let process = try ChildProcess(
            TestDaemon.executable(named: "steno"), ["--socket", double.socketPath, "meetings", "--all", "-o", format],
            environment: environment, standardOutput: .pipe)
        guard let output = process.standardOutput else { throw TestDaemonError("no pipe from steno") }
        return (process, output)
    }

    /// Runs `steno meetings --all` in `format` against the double; checks that `firstRow` is
    /// read before the last page is released, then returns the whole output.
    func streamedListing(format: String, firstRow: String) throws -> String {
        let double = try HeldPagesDaemon(
            first: Page(items: Self.meetings(1...3), nextCursor: "next"), last: Page(items: Self.meetings(4...5), nextCursor: nil))
        defer { double.release() }
        let (process, pipe) = try Self.listAll(from: double, format: format)
        let output = StreamedOutput(pipe)
        defer {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
        let early = output.wait(for: firstRow, timeout: 120)
        #expect(early, "the first page's rows were not written before the last page was answered")
        double.release()
        let whole = output.whole(timeout: 120)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return whole
    }

    @Test func jsonRowsArriveBeforeTheLastPageAndFormOneArray() throws {
        let whole = try streamedListing(format: "json", firstRow: "\"title\": \"Streamed 1\"")
        let ids = try JSONValue.parse(whole).arrayValue?.compactMap { $0["id"]?.intValue }
        #expect(ids == [1, 2, 3, 4, 5])
        let expected = try JSONValueEncoder().encode(Self.meetings(1...5)).prettyPrinted()
        #expect(whole == expected + "\n", "the streamed array differs from the list printed whole")
    }

    /// The next page is asked for before this page is written: with nobody reading steno's
    /// output, a first page larger than a pipe holds blocks its writing, and the daemon must
    /// still be asked for the second page meanwhile.
    @Test func nextPageIsAskedForBeforeThisPageIsWritten() throws {
        let first = Self.meetings(1...1000)
        let double = try HeldPagesDaemon(first: Page(items: first, nextCursor: "next"), last: Page(items: Self.meetings(1001...1002), nextCursor: nil))
        defer { double.release() }
        let (process, pipe) = try Self.listAll(from: double, format: "json")
        defer {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
        let asked = try poll(timeout: 120, { FileManager.default.fileExists(atPath: double.askedPath) }, until: { $0 })
        #expect(asked, "the second page was asked for only after the first was written")
        // Read the output before releasing: when steno waits to write, the double is not yet
        // reading its gate, and opening it to write would wait forever.
        let output = StreamedOutput(pipe)
        if !asked { _ = try poll(timeout: 120, { FileManager.default.fileExists(atPath: double.askedPath) }, until: { $0 }) }
        double.release()
        let whole = output.whole(timeout: 120)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(try JSONValue.parse(whole).arrayValue?.compactMap { $0["id"]?.intValue } == Array(1...1002))
    }

    @Test func csvRowsArriveBeforeTheLastPageUnderOneHeader() throws {
        let whole = try streamedListing(format: "csv", firstRow: "Streamed 3")
        let lines = whole.split(separator: "\n")
        #expect(lines.count == 6)
        #expect(lines.first?.hasPrefix("ID,") == true)
        #expect(lines.filter { $0.hasPrefix("ID,") }.count == 1)
        #expect(lines.dropFirst().map { $0.split(separator: ",").first.map(String.init) } == ["1", "2", "3", "4", "5"])
    }
}
