import GRDB
import StenoCatalog
import StenoCore

/// The meetings and recordings a member may see, read once by the plain visibility rule before
/// the runs (as the daemon holds them): a member's search floor reads among them. Kept as ids
/// (PostgreSQL binds them as arrays) and as JSON arrays (SQLite reads them with `json_each`).
struct MemberVisibleIDs: Sendable {
    let meetings: [Int64]
    let recordings: [Int64]
    let meetingsJSON: String
    let recordingsJSON: String

    /// Reads `user`'s sets from `database`.
    init(of user: User, in database: DatabasePool) throws {
        let (meetings, recordings) = try database.read { db in
            (
                try Int64.fetchAll(db, sql: CatalogSQL.visibleMeetingIDs(of: ":v"), arguments: ["v": user.id]),
                try Int64.fetchAll(db, sql: CatalogSQL.visibleRecordingIDs(of: ":v"), arguments: ["v": user.id])
            )
        }
        // The rules' parts may name an id twice.
        self.meetings = Set(meetings).sorted()
        self.recordings = Set(recordings).sorted()
        func json(_ ids: [Int64]) -> String { "[" + ids.map(String.init).joined(separator: ",") + "]" }
        self.meetingsJSON = json(self.meetings)
        self.recordingsJSON = json(self.recordings)
    }
}
