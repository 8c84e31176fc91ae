import GRDB
import GRDBSQLite
import StenoCatalog

/// A cached statement run with its parameters bound straight through SQLite's C API.
///
/// The calendar mirror writes tens of thousands of rows in one sync, and building a
/// `StatementArguments` for each row (a boxed value per parameter) cost about a quarter of
/// that time. Only statements used through this type alone should be run with it: GRDB does
/// not see these bindings.
///
/// Every parameter is bound at each use (bindings are not cleared between uses).
struct DirectStatement {
    private let handle: OpaquePointer
    private let connection: OpaquePointer?
    private let sql: String
    private var index: Int32 = 0

    /// The cached statement for `sql`, ready for new parameters.
    init(_ sql: String, in db: Database) throws {
        self.init(try PreparedStatement(sql, in: db))
    }

    /// `prepared`, ready for new parameters.
    init(_ prepared: PreparedStatement) {
        handle = prepared.statement.sqliteStatement
        connection = prepared.connection
        sql = prepared.sql
        sqlite3_reset(handle)
    }

    /// Binds the next parameter.
    mutating func bind(_ value: Int64?) {
        index += 1
        if let value { sqlite3_bind_int64(handle, index, value) } else { sqlite3_bind_null(handle, index) }
    }

    /// Binds the next parameter (SQLite copies the text).
    mutating func bind(_ value: String?) {
        index += 1
        guard let value else {
            sqlite3_bind_null(handle, index)
            return
        }
        var text = value
        text.withUTF8 { bytes in
            _ = bytes.withMemoryRebound(to: CChar.self) { chars in
                sqlite3_bind_text(handle, index, chars.baseAddress, Int32(chars.count), Self.transient)
            }
        }
    }

    /// Binds the next parameter as 0 or 1.
    mutating func bind(_ value: Bool) {
        bind(Int64(value ? 1 : 0))
    }

    /// Runs the statement to its end.
    ///
    /// - Throws: `DatabaseError` when SQLite refuses it (a constraint, a full disk…).
    func execute() throws {
        defer { sqlite3_reset(handle) }
        var code = sqlite3_step(handle)
        while code == SQLITE_ROW { code = sqlite3_step(handle) }
        guard code == SQLITE_DONE else { throw error(code) }
    }

    /// Runs an insert (or upsert) into a rowid table and returns the rowid of the row it
    /// inserted, or nil if it inserted none (an upsert that updated instead).
    ///
    /// What `RETURNING id` answers, without it: SQLite gathers a statement's RETURNING rows in
    /// a temporary b-tree, which cost more than the row written. The connection's last insert
    /// rowid is cleared first (rowids start at 1): compared with its previous value instead,
    /// an insert into one table that got the rowid just inserted into another (a new event
    /// and its new meeting, in lockstep in a fresh catalog) read as an update.
    ///
    /// - Throws: `DatabaseError` when SQLite refuses it.
    func executeReturningInsertedRowID() throws -> Int64? {
        sqlite3_set_last_insert_rowid(connection, 0)
        try execute()
        let inserted = sqlite3_last_insert_rowid(connection)
        return inserted == 0 ? nil : inserted
    }

    /// Runs the statement and reads the first column of its first row (a `RETURNING id`).
    ///
    /// - Throws: `DatabaseError` when SQLite refuses it.
    func fetchInt64() throws -> Int64? {
        try fetchFirstRow { $0.int64(0) } ?? nil
    }

    /// The columns of the current row of a stepping statement.
    struct Columns {
        fileprivate let handle: OpaquePointer

        /// Column `index` as an integer, nil for NULL.
        func int64(_ index: Int32) -> Int64? {
            sqlite3_column_type(handle, index) == SQLITE_NULL ? nil : sqlite3_column_int64(handle, index)
        }

        /// Column `index` as a flag: anything but NULL and 0 is true.
        func bool(_ index: Int32) -> Bool { (int64(index) ?? 0) != 0 }
    }

    /// Runs the statement and reads its first row with `read`; nil when it has none.
    ///
    /// - Throws: `DatabaseError` when SQLite refuses it.
    func fetchFirstRow<Value>(_ read: (Columns) -> Value) throws -> Value? {
        defer { sqlite3_reset(handle) }
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW:
            let value = read(Columns(handle: handle))
            var rest = sqlite3_step(handle)
            while rest == SQLITE_ROW { rest = sqlite3_step(handle) }
            guard rest == SQLITE_DONE else { throw error(rest) }
            return value
        case SQLITE_DONE:
            return nil
        default:
            throw error(code)
        }
    }

    private func error(_ code: Int32) -> DatabaseError {
        DatabaseError(
            resultCode: ResultCode(rawValue: code), message: connection.map { String(cString: sqlite3_errmsg($0)) }, sql: sql)
    }

    /// SQLITE_TRANSIENT: SQLite makes its own copy of bound text.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}

/// A statement looked up once in the connection's cache and run many times: a write of
/// thousands of rows then hashes its SQL once, not once per row.
///
/// Valid for the transaction it was made in (it keeps the statement alive, not the cache).
struct PreparedStatement {
    let statement: Statement
    let connection: OpaquePointer?
    let sql: String

    init(_ sql: String, in db: Database) throws {
        statement = try db.cachedStatement(sql: sql)
        connection = db.sqliteConnection
        self.sql = sql
    }
}
