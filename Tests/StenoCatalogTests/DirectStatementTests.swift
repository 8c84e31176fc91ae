import GRDB
import Testing

@testable import StenoCatalog
@testable import StenoSQLite

/// Statements run straight through SQLite's C API by the mirror's writer.
@Suite("Direct statements")
struct DirectStatementTests {
    /// A new event and its new meeting get the same rowid in a fresh catalog: the insert
    /// must still read as an insert (it once read as an update and looked its row up again).
    @Test func anInsertGettingTheRowidJustInsertedElsewhereIsAnInsert() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: """
                CREATE TABLE meetings (id INTEGER PRIMARY KEY, identity TEXT NOT NULL UNIQUE);
                CREATE TABLE events (id INTEGER PRIMARY KEY, remote_id TEXT NOT NULL UNIQUE, title TEXT);
                """)
            let upsertSQL = "INSERT INTO events (remote_id, title) VALUES (?, ?) ON CONFLICT(remote_id) DO UPDATE SET title = excluded.title"
            func upsertEvent(_ remoteID: String, _ title: String) throws -> Int64? {
                var statement = try DirectStatement(upsertSQL, in: db)
                statement.bind(remoteID)
                statement.bind(title)
                return try statement.executeReturningInsertedRowID()
            }
            for number in 1...3 {
                try db.execute(sql: "INSERT INTO meetings (identity) VALUES (?)", arguments: ["m\(number)"])
                #expect(db.lastInsertedRowID == Int64(number))
                #expect(try upsertEvent("e\(number)", "first") == Int64(number))
            }
            #expect(try upsertEvent("e2", "renamed") == nil)
            #expect(try String.fetchOne(db, sql: "SELECT title FROM events WHERE remote_id = 'e2'") == "renamed")
            #expect(try upsertEvent("e4", "new") == 4)
        }
    }
}
