#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Foundation
import StenoAPI
import StenoCore

extension MeetingsCommand {
    /// `steno meetings export MEETING -o DIR`: a meeting to take along, in one folder.
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Save a meeting's recordings you may see, their transcripts and its attendees in one folder.",
            discussion: """
                Writes into DIR (made when missing; without -o, a folder named after the meeting's start and title here):
                  recording-ID-OWNER.EXT              each recording bound to the meeting that you may see, copied from the file the daemon opens for you
                  recording-ID-OWNER.transcript.txt   its transcript, when it has one
                  meeting.json                        the meeting, its attendees, and which file holds which recording
                  attendees.csv                       EMAIL,NAME,ROLE,RESPONSE
                Names are made safe for any filesystem (FAT, NTFS, a zip archive). Nothing is overwritten: when a file of the export already exists in DIR, nothing is written. A recording that cannot be opened (its file gone or changed since it was catalogued) is named on standard error, the others are saved, and the exit status is 1.

                Examples:
                  steno meetings export 16
                  steno meetings export 16 -o ~/review-2026-11-20
                """)
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The meeting id.") var meeting: Int64
        @Option(name: [.customShort("o"), .customLong("output")], help: "The folder to write into.") var output: String?

        func run() throws {
            try reportingFailures {
                let (detail, transcripts) = try GlobalOptions.withClient(socket: connection.socket) { client in
                    let detail = try client.call(StenoMethods.meetingsGet, MeetingIDParams(id: meeting))
                    var transcripts: [Int64: String] = [:]
                    for recording in MeetingExport.bound(detail) {
                        // A recording that vanished between the two calls is reported when it is opened.
                        let full = try? client.call(StenoMethods.recordingsGet, RecordingReferenceParams(id: recording.id))
                        if let text = full?.transcript, !text.isEmpty { transcripts[recording.id] = text }
                    }
                    return (detail, transcripts)
                }
                let zone = TimeZoneArgument.zone(flag: nil, environment: ProcessInfo.processInfo.environment) ?? .current
                let folder = output ?? MeetingExport.folderName(detail.meeting, in: zone)
                var export = MeetingExport(detail: detail, transcripts: transcripts, folder: folder)
                try export.prepareFolder()
                try export.write(socket: connection.socket)
                Output.line(TerminalText.clean(export.summary))
                if !export.failures.isEmpty { throw ExitCode(1) }
            }
        }
    }
}

/// What `steno meetings export` writes, and writing it.
struct MeetingExport {
    let detail: MeetingDetail
    let transcripts: [Int64: String]
    let folder: String
    private(set) var savedRecordings = 0
    private(set) var savedBytes: Int64 = 0
    private(set) var savedTranscripts = 0
    private(set) var failures: [String] = []

    init(detail: MeetingDetail, transcripts: [Int64: String], folder: String) {
        self.detail = detail
        self.transcripts = transcripts
        self.folder = folder
    }

    /// The recordings bound to the meeting (linked to it, or kept after its event went).
    static func bound(_ detail: MeetingDetail) -> [MeetingRecording] {
        detail.recordings.filter { $0.state == .linked || $0.state == .orphaned }
    }

    /// `2026-11-20 09.30 Design review`, safe for any filesystem.
    static func folderName(_ meeting: MeetingSummary, in zone: TimeZone) -> String {
        let start = meeting.start.map { CachedDateFormatter.string($0, pattern: "yyyy-MM-dd HH.mm", in: zone) + " " } ?? ""
        return PortableFileName.make(start + meeting.title, fallback: "meeting \(meeting.id)")
    }

    /// The stem of a recording's files: `recording-ID-OWNER`.
    static func stem(_ recording: MeetingRecording) -> String {
        PortableFileName.make("recording-\(recording.id)" + (recording.owner.map { "-" + $0 } ?? ""), fallback: "recording-\(recording.id)")
    }

    /// Makes the folder (and its parents); refuses one that holds any file this export would write.
    func prepareFolder() throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw CLIFailure(message: "\(folder) is a file, not a folder: give -o a folder", exitCode: 1)
        }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw CLIFailure(message: "cannot make the folder \(folder): \(error.localizedDescription)", exitCode: 1)
        }
        let names = ["meeting.json", "attendees.csv"] + Self.bound(detail).map { Self.stem($0) }
        let existing = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        if let clash = existing.first(where: { name in names.contains { name == $0 || name.hasPrefix($0 + ".") } }) {
            throw CLIFailure(message: "\(folder)/\(clash) already exists: nothing was written; remove it or export into another folder", exitCode: 1)
        }
    }

    /// Copies each recording through its descriptor, then writes the transcripts, `meeting.json`
    /// and `attendees.csv`.
    mutating func write(socket: String?) throws {
        var files: [Int64: (audio: String, transcript: String?)] = [:]
        for recording in Self.bound(detail) {
            let stem = Self.stem(recording)
            do {
                let opened = try OpenedRecording(recording.id, socket: socket)
                let audio = "\(stem).\(opened.fileExtension)"
                try opened.save(to: "\(folder)/\(audio)")
                savedRecordings += 1
                savedBytes += opened.result.size
                var transcript: String?
                if let text = transcripts[recording.id] {
                    transcript = "\(stem).transcript.txt"
                    try Self.create("\(folder)/\(stem).transcript.txt", Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
                    savedTranscripts += 1
                }
                files[recording.id] = (audio, transcript)
            } catch let failure as CLIFailure {
                failures.append("recording \(recording.id): \(failure.message)")
                FileHandle.standardError.write(Data("steno: recording \(recording.id) not exported: \(TerminalText.clean(failure.message))\n".utf8))
            }
        }
        try Self.create("\(folder)/meeting.json", Data(meetingJSON(files: files).prettyPrinted().utf8 + [UInt8(ascii: "\n")]))
        try Self.create("\(folder)/attendees.csv", Data((Self.attendeesCSV(detail.attendees) + "\n").utf8))
    }

    /// The meeting as `meetings show --json` gives it, each bound recording with its files.
    func meetingJSON(files: [Int64: (audio: String, transcript: String?)]) -> JSONValue {
        guard case .object(var fields) = Output.json(detail) else { return Output.json(detail) }
        if case .array(let recordings) = fields["recordings"] {
            fields["recordings"] = .array(recordings.map { item in
                guard case .object(var recording) = item, let id = item["id"]?.intValue, let saved = files[id] else { return item }
                recording["file"] = .string(saved.audio)
                if let transcript = saved.transcript { recording["transcriptFile"] = .string(transcript) }
                return .object(recording)
            })
        }
        return .object(fields)
    }

    /// The attendees as CSV. A cell a spreadsheet would run as a formula (`=`, `+`, `-`, `@`
    /// first) is written with a leading `'`: names and addresses come from outside.
    static func attendeesCSV(_ attendees: [Attendee]) -> String {
        var table = TableWriter(["EMAIL", "NAME", "ROLE", "RESPONSE"])
        func inert(_ cell: String) -> String {
            guard let first = cell.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) else { return cell }
            return "'" + cell
        }
        for attendee in attendees {
            table.add([inert(attendee.email), inert(attendee.name ?? ""), attendee.role.rawValue, attendee.response.rawValue])
        }
        return table.renderCSV()
    }

    /// One line for the person who asked.
    var summary: String {
        let transcriptsSaved = savedTranscripts
        return "exported meeting \(detail.meeting.id) to \(folder): \(savedRecordings) recording\(savedRecordings == 1 ? "" : "s") "
            + "(\(savedBytes) bytes), \(transcriptsSaved) transcript\(transcriptsSaved == 1 ? "" : "s"), meeting.json, attendees.csv"
            + (failures.isEmpty ? "" : "; \(failures.count) not exported")
    }

    /// Writes `data` as a new file (never over an existing one).
    static func create(_ path: String, _ data: Data) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw CLIFailure(message: "cannot create \(path): \(String(cString: strerror(errno)))", exitCode: 1) }
        defer { close(descriptor) }
        let written = data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let step = Glibc.write(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
                if step < 0 && errno == EINTR { continue }
                guard step > 0 else { return false }
                offset += step
            }
            return true
        }
        guard written else { throw CLIFailure(message: "cannot write \(path): \(String(cString: strerror(errno)))", exitCode: 1) }
    }
}
