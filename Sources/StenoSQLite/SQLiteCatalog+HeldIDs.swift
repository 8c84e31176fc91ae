import CSQLiteSettings
import GRDB
import StenoCatalog

/// A member's visible ids handed to a statement as they are held in memory: the statement
/// tests rows with `steno_held(:held, id)`, a binary search in the sorted ids. Passed as a JSON
/// array instead (`id IN (SELECT value FROM json_each(?))`), every search parsed the member's
/// thousands of ids into a temporary index first, and then looked each match up in it.
extension SQLiteCatalog {
    /// The name of the parameter the held ids are bound to.
    static let heldParameter = ":held"

    /// The rows of `statement` with `arguments`; with `held` ids (ascending), those bound to
    /// its parameter `:held` for the time of the read.
    static func rows(of statement: Statement, _ arguments: StatementArguments, held: [Int64]?) throws -> [Row] {
        guard let held else { return try Row.fetchAll(statement, arguments: arguments) }
        // NULL first, so that GRDB finds every parameter given; the ids replace it below.
        var arguments = arguments
        _ = arguments.append(contentsOf: [String(heldParameter.dropFirst()): nil])
        try statement.setArguments(arguments)
        let handle = UnsafeMutableRawPointer(statement.sqliteStatement)
        return try held.withUnsafeBufferPointer { ids in
            let bound = ids.withMemoryRebound(to: CLongLong.self) { ids in
                steno_sqlite_bind_held_ids(handle, heldParameter, ids.baseAddress, Int32(clamping: ids.count))
            }
            guard bound == 0 else {
                throw DatabaseError(resultCode: ResultCode(rawValue: bound), message: "cannot bind the held ids to \(heldParameter)")
            }
            // The ids must not outlive this call: the cached statement keeps its bindings.
            defer { steno_sqlite_unbind_held_ids(handle, heldParameter) }
            return try Row.fetchAll(statement)
        }
    }
}
