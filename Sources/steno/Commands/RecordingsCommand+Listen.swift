#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Foundation
import StenoAPI
import StenoCore

/// A recording's file as the daemon hands it over (`recordings.open`): the open descriptor,
/// closed when the value goes.
final class OpenedRecording {
    let result: RecordingOpenResult
    let descriptor: Int32

    init(_ id: Int64, socket: String?) throws {
        (result, descriptor) = try GlobalOptions.withClient(socket: socket) { client in
            try client.callReceivingDescriptor(StenoMethods.recordingsOpen, RecordingReferenceParams(id: id))
        }
    }

    deinit { close(descriptor) }

    /// A file name for the recording: `recording-ID.EXT`.
    var fileName: String { "recording-\(result.recording).\(fileExtension)" }

    /// The extension players know the recording's container by.
    var fileExtension: String {
        switch result.format {
        case "wav", "rf64": "wav"
        case "mp4": "m4a"
        case "matroska": "mka"
        case let format?: PortableFileName.make(format, fallback: "audio")
        case nil: "audio"
        }
    }

    /// Saves the whole file as a new file at `path` (never over an existing one); a copy cut
    /// short is removed.
    func save(to path: String) throws {
        let target = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard target >= 0 else {
            throw CLIFailure(message: "cannot create \(path): \(String(cString: strerror(errno)))", exitCode: 1)
        }
        defer { close(target) }
        do {
            try copy(to: target)
        } catch {
            unlink(path)
            throw error
        }
    }

    /// Copies the whole file to `output`, at disk speed (`sendfile` where both ends allow it).
    func copy(to output: Int32) throws {
        var offset: off_t = 0
        while offset < off_t(result.size) {
            let sent = sendfile(output, descriptor, &offset, Int(min(off_t(1 << 30), off_t(result.size) - offset)))
            if sent > 0 { continue }
            if sent < 0 && errno == EINTR { continue }
            if sent < 0 && (errno == EINVAL || errno == ENOSYS) { return try copyByReading(to: output, from: offset) }
            if sent == 0 { throw CLIFailure(message: "the recording's file ended after \(offset) of \(result.size) bytes", exitCode: 1) }
            throw CLIFailure(message: "cannot write the recording: \(String(cString: strerror(errno)))", exitCode: 1)
        }
    }

    private func copyByReading(to output: Int32, from start: off_t) throws {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset = start
        while offset < off_t(result.size) {
            let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, offset) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw CLIFailure(message: "cannot read the recording at byte \(offset)", exitCode: 1) }
            var written = 0
            while written < count {
                let step = buffer.withUnsafeBytes { write(output, $0.baseAddress.map { $0 + written }, count - written) }
                if step < 0 && errno == EINTR { continue }
                guard step > 0 else { throw CLIFailure(message: "cannot write the recording: \(String(cString: strerror(errno)))", exitCode: 1) }
                written += step
            }
            offset += off_t(count)
        }
    }

    /// Plays the file with `$STENO_PLAYER` (split into words like `$EDITOR`) or the first of
    /// mpv, ffplay, vlc and paplay found, handing it the file as `/dev/fd/3` (or as `path`, for
    /// a caller who may read it there); returns its status.
    func play(path: String? = nil) throws -> Int32 {
        let player: [String]
        if let configured = ProcessInfo.processInfo.environment["STENO_PLAYER"], !configured.trimmingCharacters(in: .whitespaces).isEmpty {
            player = configured.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        } else if let found = Self.defaultPlayers.first(where: { Self.onPath($0[0]) != nil }) {
            FileHandle.standardError.write(Data("playing recording \(result.recording) with \(found[0])\n".utf8))
            player = found
        } else {
            throw CLIFailure(
                message: "no player found (tried \(Self.defaultPlayers.map { $0[0] }.joined(separator: ", "))): install one, set STENO_PLAYER, "
                    + "or save the file with steno recordings export \(result.recording)", exitCode: 1)
        }
        guard let program = player.first, let executable = program.contains("/") ? program : Self.onPath(program) else {
            throw CLIFailure(message: "STENO_PLAYER names \(player.first ?? "nothing"), which is not on PATH", exitCode: 1)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // The descriptor arrives close-on-exec; dup2 onto 3 gives the player its own copy.
        posix_spawn_file_actions_adddup2(&actions, descriptor, 3)
        let argv = (player + [path ?? "/dev/fd/3"]).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else {
            throw CLIFailure(message: "could not run \(program): \(String(cString: strerror(spawned)))", exitCode: 1)
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS, which Swift does not import; a signal counts as 128 + its number.
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }

    /// The players tried without `$STENO_PLAYER`, in order, with the arguments that make them
    /// play a file and end.
    static let defaultPlayers = [["mpv", "--no-video"], ["ffplay", "-nodisp", "-autoexit"], ["vlc", "--play-and-exit"], ["paplay"]]

    /// The full path of `program` on `$PATH`.
    static func onPath(_ program: String) -> String? {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return folders.map { "\($0)/\(program)" }.first { access($0, X_OK) == 0 }
    }
}

extension RecordingsCommand {
    struct Play: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "play",
            abstract: "Play a recording you may see, through the file the daemon opens for you.",
            discussion: """
                The daemon checks that you may see the recording and hands its open file over the socket: no permission on the inbox is needed. Plays with $STENO_PLAYER (split into words like $EDITOR, the file given as /dev/fd/3), else the first of mpv, ffplay, vlc and paplay found. Exits with the player's status.

                Examples:
                  steno recordings play 42
                  STENO_PLAYER="mpv --speed=1.5" steno recordings play 42
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The recording id.") var id: Int64

        func run() throws {
            try reportingFailures {
                let status = try OpenedRecording(id, socket: global.socket).play()
                if status != 0 { throw ExitCode(status) }
            }
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Save a copy of a recording you may see.",
            discussion: """
                Copies the file the daemon opens for you, at disk speed. Without -o the copy is recording-ID.EXT in the current folder; -o - writes it to standard output (for a pipe). An existing file is not overwritten.

                Examples:
                  steno recordings export 42
                  steno recordings export 42 -o ~/review.m4a
                  steno recordings export 42 -o - | ffmpeg -i pipe:0 review.mp3
                """)
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The recording id.") var id: Int64
        @Option(name: [.customShort("o"), .customLong("output")], help: "Where to write the copy; - for standard output.") var output: String?

        func run() throws {
            try reportingFailures {
                let opened = try OpenedRecording(id, socket: connection.socket)
                if output == "-" {
                    if isatty(STDOUT_FILENO) == 1 {
                        throw CLIFailure(message: "standard output is a terminal: pipe it (steno recordings export \(id) -o - | …) or give -o FILE", exitCode: 64)
                    }
                    return try opened.copy(to: STDOUT_FILENO)
                }
                let path = output ?? opened.fileName
                try opened.save(to: path)
                Output.line("saved recording \(id) (\(opened.result.size) bytes) to \(TerminalText.clean(path))")
            }
        }
    }
}
