#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Foundation
import StenoCatalog
import StenoCore
import StenoSQLite
import StenoService
import StenoTesting

/// `steno-bench link`: links recordings against a large generated mirror, then revalidates
/// every link; prints time and the process's peak memory.
struct LinkBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "link",
        abstract: "Link N recordings against M mirrored occurrences, then revalidate (targets: each < 10 s, peak memory < 500 MB).")

    @Option(help: "Recordings to link.") var recordings = 100_000
    @Option(help: "Mirrored event occurrences.") var occurrences = 1_000_000
    @Option(help: "Users (each with one calendar account).") var users = 100
    @Option(help: "Where the generated catalog lives (removed afterwards unless --reuse).") var directory = "/tmp/steno-bench-link"
    @Flag(help: "Keep the generated catalog in --directory and start from a copy of it when the sizes match (generation takes minutes).")
    var reuse = false
    @Flag(help: .hidden) var upgradeTemplateOnly = false

    var template: String { "\(directory)/generated-\(users)-\(occurrences)-\(recordings).sqlite" }

    /// Brings a kept template to the current schema in a process of its own: migrating a
    /// million events leaves a heap behind that would otherwise count as the linker's memory.
    func upgradeTemplate() throws {
        if upgradeTemplateOnly { return }
        let child = try ChildProcess(
            "/proc/self/exe",
            [
                "link", "--upgrade-template-only", "--directory", directory, "--users", String(users), "--occurrences",
                String(occurrences), "--recordings", String(recordings),
            ], standardOutput: .inherit, standardError: .inherit)
        child.waitUntilExit()
        guard child.terminationStatus == 0 else { throw ValidationError("upgrading \(template) failed") }
    }

    /// The child's work: open the template (which migrates it) and put a complete copy in its
    /// place (the migration may still be in the template's WAL).
    private func upgradeTemplateInPlace() async throws {
        let upgraded = template + ".upgraded"
        do {
            let catalog = try await SQLiteCatalog.open(path: template)
            _ = try await catalog.backup(to: upgraded)
        }
        try? FileManager.default.removeItem(atPath: template)
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: template + suffix) }
        try FileManager.default.moveItem(atPath: upgraded, toPath: template)
    }

    func run() async throws {
        if upgradeTemplateOnly { return try await upgradeTemplateInPlace() }
        let working = directory + "/catalog.sqlite"
        if !reuse { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer {
            if reuse {
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: working + suffix) }
            } else {
                try? FileManager.default.removeItem(atPath: directory)
            }
        }
        let catalog: SQLiteCatalog
        let recordingIDs: [Int64]
        if reuse, FileManager.default.fileExists(atPath: template) {
            try upgradeTemplate()
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: working + suffix) }
            try FileManager.default.copyItem(atPath: template, toPath: working)
            catalog = try await SQLiteCatalog.open(path: working)
            recordingIDs = try await Self.allRecordingIDs(catalog)
            print("reusing \(template): \(recordingIDs.count) recordings")
        } else {
            catalog = try await SQLiteCatalog.open(path: working)
            recordingIDs = try await generate(into: catalog)
            if reuse { _ = try await catalog.backup(to: template) }
        }
        // The peak so far is the generator's: measure the linker's own from here.
        Self.resetPeakMemory()
        let baselineStart = Date()
        var scanned = 0
        for owner in try await catalog.users(afterID: nil, limit: 1_000_000) {
            scanned += try await catalog.linkCandidates(ownerID: owner.id, window: DateInterval(start: .distantPast, end: .distantFuture)).count
        }
        let baselineSeconds = Date().timeIntervalSince(baselineStart)

        let linker = RecordingLinker(store: catalog)
        let linkStart = Date()
        let states = try await linker.link(recordingIDs: recordingIDs)
        let linkSeconds = Date().timeIntervalSince(linkStart)
        let peakAfterLink = Self.peakMegabytes()

        let revalidateStart = Date()
        let actions = try await linker.revalidate(recordingIDs: recordingIDs)
        let revalidateSeconds = Date().timeIntervalSince(revalidateStart)
        let peak = Self.peakMegabytes()

        print("step          items      seconds   per item   peak MB   target")
        print(String(format: "baseline      %-10d %-9.2f %-10@ %-9@ (every owner's candidates read once: the I/O floor)", scanned,
                     baselineSeconds, "\(Int(baselineSeconds / Double(max(1, scanned)) * 1e9)) ns" as NSString, "-" as NSString))
        print(String(format: "link          %-10d %-9.2f %-10@ %-9d < 10 s, < 500 MB", recordings, linkSeconds,
                     "\(Int(linkSeconds / Double(max(1, recordings)) * 1e6)) µs" as NSString, peakAfterLink))
        print(String(format: "revalidate    %-10d %-9.2f %-10@ %-9d < 10 s, < 500 MB", recordings, revalidateSeconds,
                     "\(Int(revalidateSeconds / Double(max(1, recordings)) * 1e6)) µs" as NSString, peak))
        print(String(format: "\nlink / baseline %.1f×, revalidate / baseline %.1f×", linkSeconds / max(baselineSeconds, 1e-9),
                     revalidateSeconds / max(baselineSeconds, 1e-9)))
        print("link states: " + states.map { "\($0.key.rawValue) \($0.value)" }.sorted().joined(separator: ", "))
        print("revalidation: " + actions.map { "\($0.key.rawValue) \($0.value)" }.sorted().joined(separator: ", "))
        let pass = linkSeconds < 10 && revalidateSeconds < 10 && peak < 500
        print("\n\(occurrences) occurrences, \(recordings) recordings: \(pass ? "PASS" : "FAIL")")
    }

    /// Meeting `number` of user `owner` as their own calendar holds it: organised by them, with
    /// one colleague invited, and whoever else is given.
    static func organizersCopy(
        owner: Int, number: Int, users: Int, start: Date, spacing: Double, alsoInvited: [Attendee] = []
    ) -> ResourceUpdate {
        let uid = "u\(owner)-e\(number)"
        let other = "user\((owner + 1 + number % 7) % users)@bench.example"
        return ResourceUpdate(resource: uid, occurrences: [
            EventOccurrence(
                remoteID: uid, iCalUID: uid, seriesUID: uid, meetingIdentity: uid, title: "Meeting \(number % 97)", start: start,
                end: start.addingTimeInterval(min(1800, spacing * 0.8)),
                organizer: Attendee(email: "user\(owner)@bench.example", role: .organizer, response: .accepted),
                attendees: [Attendee(email: other, response: number % 5 == 0 ? .declined : .accepted)] + alsoInvited),
        ])
    }

    /// The calendar every generated account holds its meetings in.
    static let calendar = CalendarDescriptor(remoteID: "cal", name: "Bench")

    /// Fills the catalog: users with one calendar each, evenly spread occurrences over 2026,
    /// recordings mostly inside meetings, some between them. Returns the recording ids.
    func generate(into catalog: SQLiteCatalog) async throws -> [Int64] {
        let year = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01
        print("generating \(users) users, \(occurrences) occurrences, \(recordings) recordings…")
        let generationStart = Date()
        var userIDs: [Int64] = []
        for index in 0..<users {
            userIDs.append(try await catalog.addUser(UserDraft(name: "user\(index)", emails: ["user\(index)@bench.example"])).id)
        }
        let perUser = max(1, occurrences / users)
        let spacing = 365.0 * 86_400 / Double(perUser)
        var eventStarts: [[Date]] = []
        for (index, userID) in userIDs.enumerated() {
            let account = try await catalog.addAccount(
                CalendarAccountDraft(provider: .ics, ownerID: userID, displayName: "bench-\(index)"), now: Date())
            var starts: [Date] = []
            var chunk: [ResourceUpdate] = []
            for number in 0..<perUser {
                let start = year.addingTimeInterval(Double(number) * spacing)
                starts.append(start)
                chunk.append(Self.organizersCopy(owner: index, number: number, users: users, start: start, spacing: spacing))
                if chunk.count == 5000 || number == perUser - 1 {
                    _ = try await catalog.applyCalendarChanges(
                        CalendarChangeSet(calendar: Self.calendar, scope: .incremental, updatedResources: chunk),
                        accountID: account.id, now: Date())
                    chunk.removeAll(keepingCapacity: true)
                }
            }
            eventStarts.append(starts)
        }
        var generator = SystemRandomNumberGenerator()
        var recordingIDs: [Int64] = []
        for number in 0..<recordings {
            let owner = number % users
            let starts = eventStarts[owner]
            // Most recordings sit in a meeting, some between meetings.
            let base = starts[Int.random(in: 0..<starts.count, using: &generator)]
            let start = number % 10 < 8 ? base.addingTimeInterval(60) : base.addingTimeInterval(spacing / 2)
            let recording = try await catalog.recordIngest(
                IngestRecord(
                    path: "user\(owner)/r\(number).wav", size: 1, modified: start, contentHash: "hash-\(number)", ownerID: userIDs[owner],
                    outcome: .ready(RecordingMetadata(format: "wav", codec: "pcm", duration: 20 * 60, recordedAt: start, recordedAtSource: .sidecar))))
            recordingIDs.append(recording.id)
        }
        print("generated in \(String(format: "%.1f", Date().timeIntervalSince(generationStart))) s; peak memory so far \(Self.peakMegabytes()) MB\n")
        return recordingIDs
    }

    /// Every recording id of the catalog.
    static func allRecordingIDs(_ catalog: SQLiteCatalog) async throws -> [Int64] {
        var ids: [Int64] = []
        var after: Int64?
        while true {
            let page = try await catalog.recordings(RecordingQuery(afterID: after, limit: 10_000))
            guard let last = page.last else { return ids }
            ids += page.map(\.id)
            after = last.id
        }
    }

    /// Resets VmHWM to the current resident size (Linux: `5` into clear_refs).
    static func resetPeakMemory() {
        let descriptor = Glibc.open("/proc/self/clear_refs", O_WRONLY)
        guard descriptor >= 0 else { return }
        _ = Glibc.write(descriptor, "5", 1)
        Glibc.close(descriptor)
    }

    /// The process's peak resident memory (VmHWM) in MB.
    static func peakMegabytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return -1 }
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) / 1024
    }
}
