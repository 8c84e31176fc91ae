import GRDB
import StenoCatalog

/// The catalog file is damaged: pages SQLite cannot read or that contradict each other.
///
/// A damaged catalog would serve wrong answers and lose rows at the next write that touches
/// those pages; stenod refuses to start on one and says how to restore it.
public struct CatalogDamaged: Error, Sendable, Hashable, CustomStringConvertible {
    /// The catalog file.
    public var path: String
    /// What `PRAGMA quick_check` reported (at most the first few problems).
    public var problems: [String]

    public var description: String {
        "the catalog \(path) is damaged (\(problems.joined(separator: "; "))). Stop here and restore it: stop stenod, "
            + "move \(path) aside, remove \(path)-wal and \(path)-shm, copy your latest `steno admin backup` file to \(path) "
            + "(mode 0600, owned by the daemon's user), then start stenod again; recordings still in the inbox are cataloged anew"
    }
}

enum CatalogIntegrity {
    /// How many problems are reported at most.
    static let reportedProblems = 5

    /// Runs `PRAGMA quick_check` (every page and index entry is read; uniqueness and the
    /// index-to-table match are not, which would cost as much as a full integrity_check).
    ///
    /// - Throws: ``CatalogDamaged`` when it finds problems or SQLite calls the file corrupt.
    static func check(_ reader: any DatabaseReader, path: String) async throws {
        let problems: [String]
        do {
            problems = try await reader.read { db in
                try String.fetchAll(db, sql: "PRAGMA quick_check(\(reportedProblems))")
            }
        } catch let error as DatabaseError {
            throw damage(error, path: path) ?? error
        }
        guard problems == ["ok"] else { throw CatalogDamaged(path: path, problems: problems) }
    }

    /// The damage `error` reports, if it is one: pages SQLite calls corrupt, a file that is no
    /// database, or one shorter than its header says (cut by a full disk or a broken copy).
    static func damage(_ error: DatabaseError, path: String) -> CatalogDamaged? {
        let shortRead = error.extendedResultCode == .SQLITE_IOERR_SHORT_READ
        guard shortRead || [.SQLITE_CORRUPT, .SQLITE_NOTADB].contains(error.resultCode) else { return nil }
        return CatalogDamaged(path: path, problems: [error.message ?? "\(error)"])
    }
}
