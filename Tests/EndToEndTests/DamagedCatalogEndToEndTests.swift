import Foundation
import StenoAPI
import StenoTesting
import StenoTestTraits
import Testing

/// A catalog with a damaged page is refused at start-up, with the way to restore it.
@Suite("A damaged catalog", .blocksThreads, .serialized)
struct DamagedCatalogEndToEndTests {
    /// Overwrites the root page of `table` (a table b-tree page in the middle of the file) with
    /// garbage, after folding the WAL into the file.
    static func damage(table: String, in catalog: String) throws -> CommandResult {
        let script = """
            import sqlite3, sys
            path, table = sys.argv[1], sys.argv[2]
            db = sqlite3.connect(path)
            db.execute('PRAGMA wal_checkpoint(TRUNCATE)')
            page_size = db.execute('PRAGMA page_size').fetchone()[0]
            pages = db.execute('PRAGMA page_count').fetchone()[0]
            root = db.execute('SELECT rootpage FROM sqlite_master WHERE type = ? AND name = ?', ('table', table)).fetchone()[0]
            db.close()
            assert 1 < root < pages, (root, pages)
            with open(path, 'r+b') as f:
                f.seek((root - 1) * page_size)
                f.write(bytes((i * 37 + 11) % 256 for i in range(page_size)))
            print(root, pages)
            """
        return try runCommand("/usr/bin/env", ["python3", "-c", script, catalog, table])
    }

    @Test func aDamagedPageIsRefusedWithHowToRestore() throws {
        let daemon = try TestDaemon()
        defer { daemon.shutdown() }
        let client = try daemon.client()
        for index in 0..<50 {
            _ = try client.call(StenoMethods.usersAdd, UserAddParams(name: "user\(index)", emails: ["u\(index)@example.com"]))
        }
        let backup = daemon.root + "/backup.sqlite"
        #expect(try steno(daemon, ["admin", "backup", backup]).status == 0)
        #expect(daemon.stop() == 0)

        let catalog = daemon.dataDirectory + "/catalog.sqlite"
        let damaged = try Self.damage(table: "users", in: catalog)
        try #require(damaged.status == 0, "\(damaged.stderr)")
        let refusal = #expect(throws: TestDaemonError.self) { try daemon.start(timeout: 15) }
        let message = refusal?.description ?? ""
        #expect(message.contains("the catalog \(catalog) is damaged") && message.contains("steno admin backup"), "\(message)")

        // Restored as the message says, it starts with the data of the backup.
        for file in [catalog, catalog + "-wal", catalog + "-shm"] { try? FileManager.default.removeItem(atPath: file) }
        try FileManager.default.copyItem(atPath: backup, toPath: catalog)
        try daemon.start()
        let users = try daemon.client().call(StenoMethods.usersList, PageParams(limit: 100))
        #expect(users.items.count == 50)
    }

    @Test(arguments: [0.5, 0.02])
    func aTruncatedCatalogIsRefusedWithHowToRestore(keeping share: Double) throws {
        let daemon = try TestDaemon()
        defer { daemon.shutdown() }
        let client = try daemon.client()
        for index in 0..<200 {
            _ = try client.call(StenoMethods.usersAdd, UserAddParams(name: "user\(index)", emails: ["u\(index)@example.com"]))
        }
        #expect(daemon.stop() == 0)
        let catalog = daemon.dataDirectory + "/catalog.sqlite"
        // Cut as a full disk or an interrupted copy leaves it; the WAL is gone with it.
        let size = try #require(try FileManager.default.attributesOfItem(atPath: catalog)[.size] as? Int)
        try #require(truncate(catalog, off_t(Double(size) * share)) == 0)
        for file in [catalog + "-wal", catalog + "-shm"] { try? FileManager.default.removeItem(atPath: file) }
        let refusal = #expect(throws: TestDaemonError.self) { try daemon.start(timeout: 15) }
        let message = refusal?.description ?? ""
        #expect(message.contains("the catalog \(catalog) is damaged") && message.contains("steno admin backup"), "\(message)")
    }
}
