import Foundation
import Logging
import StenoAPI
import StenoCatalog
import StenoCore
import StenoSQLite
import Testing

@testable import StenoService

/// `admin.backup` with `pruneOlderThanDays` removes the old catalog copies beside the new one,
/// and nothing else.
@Suite("Rotating backups")
struct BackupRotationTests {
    let root = NSTemporaryDirectory() + "steno-backups-" + UUID().uuidString

    func call() -> RPCCall {
        RPCCall(
            caller: Caller(credentials: PeerCredentials(pid: 1, uid: 0, gid: 0), user: nil, role: .admin), logger: Logger(label: "test"),
            method: StenoMethods.adminBackup.name)
    }

    /// A file at `name` written `daysAgo` days ago.
    func file(_ name: String, _ data: Data, daysAgo: Double) throws -> String {
        let path = root + "/backups/" + name
        try data.write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-daysAgo * 86_400)], ofItemAtPath: path)
        return path
    }

    @Test func oldCatalogCopiesGoAndNothingElseDoes() async throws {
        try FileManager.default.createDirectory(atPath: root + "/backups", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let catalog = try await SQLiteCatalog.open(path: root + "/catalog.sqlite")
        let methods = AdminMethods(store: catalog, catalogFiles: [root + "/backups/live.sqlite"])
        _ = try await methods.backup(BackupParams(path: root + "/backups/first.sqlite"), call: call())
        let sqlite = try Data(contentsOf: URL(fileURLWithPath: root + "/backups/first.sqlite"))
        let old = try file("catalog-2026-10-01.sqlite", sqlite, daysAgo: 60)
        let young = try file("catalog-2026-11-30.sqlite", sqlite, daysAgo: 5)
        let notes = try file("notes.txt", Data("keep me".utf8), daysAgo: 90)
        let wal = try file("catalog-2026-10-01.sqlite-wal", sqlite, daysAgo: 60)
        let live = try file("live.sqlite", sqlite, daysAgo: 90)
        try FileManager.default.createSymbolicLink(atPath: root + "/backups/link.sqlite", withDestinationPath: old)
        try FileManager.default.createDirectory(atPath: root + "/backups/older.sqlite", withIntermediateDirectories: true)

        let result = try await methods.backup(BackupParams(path: root + "/backups/today.sqlite", pruneOlderThanDays: 30), call: call())
        #expect(result.pruned == [old])
        for kept in [young, notes, wal, live, root + "/backups/today.sqlite", root + "/backups/first.sqlite"] {
            #expect(FileManager.default.fileExists(atPath: kept), "\(kept) was removed")
        }
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: root + "/backups/link.sqlite")) == old, "a link is never followed nor removed")
        #expect(try await methods.backup(BackupParams(path: root + "/backups/again.sqlite"), call: call()).pruned == nil)
        await #expect(throws: RPCError.self) {
            try await methods.backup(BackupParams(path: root + "/backups/zero.sqlite", pruneOlderThanDays: 0), call: call())
        }
        #expect(!FileManager.default.fileExists(atPath: root + "/backups/zero.sqlite"), "a bad rotation writes nothing")
    }
}
