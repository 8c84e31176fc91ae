#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StenoAPI
import StenoTesting
import StenoTestTraits
import Testing

/// The catalog, its key and its backups are the daemon's alone: members reach the data only
/// through the socket's rules, never by opening the files.
@Suite("Data folder permissions", .blocksThreads, .serialized)
struct DataPermissionsEndToEndTests {
    static func mode(_ path: String) -> mode_t? {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        return status.st_mode & 0o777
    }

    /// Starts a daemon with the umask a shell usually has (022), as an operator starting it by hand would.
    static func daemonUnderUmask022(config: String = "") throws -> TestDaemon {
        let previous = umask(0o022)
        defer { umask(previous) }
        return try TestDaemon(config: config)
    }

    @Test func theDataIsPrivateWhateverTheUmask() throws {
        let daemon = try Self.daemonUnderUmask022()
        defer { daemon.shutdown() }
        #expect(try steno(daemon, ["users", "add", "alice", "--email", "alice@example.com"]).status == 0)
        let catalog = daemon.dataDirectory + "/catalog.sqlite"
        let backup = daemon.root + "/backup.sqlite"
        let backedUp = try steno(daemon, ["admin", "backup", backup])
        #expect(backedUp.status == 0, "\(backedUp.stderr)")

        #expect(Self.mode(daemon.dataDirectory) == 0o700)
        for file in [catalog, catalog + "-wal", catalog + "-shm", daemon.dataDirectory + "/secret.key", backup] {
            #expect(Self.mode(file) == 0o600, "\(file) has mode \(String(Self.mode(file) ?? 0, radix: 8))")
        }
        // The socket keeps its own mode, set from socket_mode.
        #expect(Self.mode(daemon.socketPath) == 0o660)
        // The inbox is where people drop files: it keeps the umask's mode.
        #expect(Self.mode(daemon.inboxDirectory) == 0o755)
    }

    /// Runs where another uid can be used, and under CI=true always (failing there if it cannot).
    @Test(.enabled(if: TestRequirement.runs(when: canSwitchUsers), "needs root and setpriv"))
    func anotherUserCannotOpenTheCatalogOrABackup() throws {
        try #require(canSwitchUsers, "needs root and /usr/bin/setpriv to act as another uid")
        let daemon = try Self.daemonUnderUmask022()
        defer { daemon.shutdown() }
        let catalog = daemon.dataDirectory + "/catalog.sqlite"
        let backup = daemon.root + "/backup.sqlite"
        #expect(try steno(daemon, ["admin", "backup", backup]).status == 0)
        for file in [catalog, catalog + "-wal", daemon.dataDirectory + "/secret.key", backup] {
            let read = try runAsOtherUser("/bin/cat", [file])
            #expect(read.status != 0 && read.stdout.isEmpty, "another user read \(file)")
        }
        let opened = try runAsOtherUser(
            "/usr/bin/env", ["python3", "-c", "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select count(*) from users').fetchone()[0])", catalog])
        #expect(opened.status != 0 && opened.stdout.isEmpty, "another user opened the catalog: \(opened.stdout)")
    }

    /// Stops the daemon, gives `file` (in its data folder) `mode`, and expects the restart to
    /// be refused with the path, the mode and the chmod that fixes it; the file is left as it was.
    static func expectRefusedStart(_ daemon: TestDaemon, file: String, mode: mode_t, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(daemon.stop() == 0, sourceLocation: sourceLocation)
        let path = daemon.dataDirectory + "/" + file
        #expect(chmod(path, mode) == 0, sourceLocation: sourceLocation)
        let refusal = #expect(throws: TestDaemonError.self, sourceLocation: sourceLocation) { try daemon.start(timeout: 15) }
        let message = refusal?.description ?? ""
        #expect(
            message.contains(path) && message.contains("0" + String(mode, radix: 8)) && message.contains("chmod 600 \(path)"),
            "\(message)", sourceLocation: sourceLocation)
        #expect(Self.mode(path) == mode, "the daemon must refuse, not fix the file silently", sourceLocation: sourceLocation)
    }

    @Test func aCatalogOthersMayReadIsRefusedWithTheFix() throws {
        let daemon = try TestDaemon()
        defer { daemon.shutdown() }
        Self.expectRefusedStart(daemon, file: "catalog.sqlite", mode: 0o644)
        // Once fixed as told, it starts.
        #expect(chmod(daemon.dataDirectory + "/catalog.sqlite", 0o600) == 0)
        try daemon.start()
    }

    @Test func aKeyOthersMayReadIsRefusedWithTheFix() throws {
        let daemon = try TestDaemon()
        defer { daemon.shutdown() }
        Self.expectRefusedStart(daemon, file: "secret.key", mode: 0o640)
    }

    @Test func aDataFolderOpenToTheSocketGroupIsNarrowedLoudly() throws {
        let daemon = try sharedSocketDaemon()
        defer { daemon.shutdown() }
        #expect(daemon.stop() == 0)
        #expect(chown(daemon.dataDirectory, 0, otherUID) == 0)
        #expect(chmod(daemon.dataDirectory, 0o750) == 0)
        try daemon.start()
        #expect(Self.mode(daemon.dataDirectory) == 0o700)
        let warning = daemon.log.split(separator: "\n").first { $0.contains("ERROR") && $0.contains("socket's group") }
        #expect(warning?.contains(daemon.dataDirectory) == true, "\(daemon.log)")
    }

    @Test func aDataFolderOpenToTheDaemonsOwnGroupIsNarrowedLoudlyWithoutSocketGroup() throws {
        // Without socket_group the socket is the daemon's group's: the same group as its data folder's.
        let daemon = try TestDaemon()
        defer { daemon.shutdown() }
        #expect(daemon.stop() == 0)
        #expect(chown(daemon.dataDirectory, getuid(), getegid()) == 0)
        #expect(chmod(daemon.dataDirectory, 0o750) == 0)
        try daemon.start()
        #expect(Self.mode(daemon.dataDirectory) == 0o700)
        #expect(daemon.log.split(separator: "\n").contains { $0.contains("ERROR") && $0.contains("socket's group") }, "\(daemon.log)")
    }

    @Test func aBackupIsNeverWrittenThroughALinkNorOverAFile() throws {
        let daemon = try TestDaemon()
        defer { daemon.shutdown() }
        let elsewhere = daemon.root + "/elsewhere"
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: false)
        let link = daemon.root + "/dangling.sqlite"
        #expect(symlink(elsewhere + "/planted.sqlite", link) == 0)
        let throughLink = try steno(daemon, ["admin", "backup", link])
        #expect(throughLink.status != 0 && throughLink.stderr.contains("symbolic link"), "\(throughLink.stderr)")
        #expect(!FileManager.default.fileExists(atPath: elsewhere + "/planted.sqlite"))

        let existing = daemon.root + "/existing.sqlite"
        try "keep me".write(toFile: existing, atomically: true, encoding: .utf8)
        let over = try steno(daemon, ["admin", "backup", existing])
        #expect(over.status != 0 && over.stderr.contains("exists already"), "\(over.stderr)")
        #expect(try String(contentsOfFile: existing, encoding: .utf8) == "keep me")
    }
}
