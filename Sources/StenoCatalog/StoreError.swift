/// A storage failure a caller can act on. Anything else (I/O, corruption) surfaces as the
/// underlying error.
public enum StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Nothing matches, e.g. `user "carol"`.
    case notFound(entity: String, reference: String)
    /// The change clashes with what exists, e.g. an email another user already has.
    case conflict(String)
    /// The input breaks a rule of the domain.
    case invalid(String)
    /// The database was written by a newer Steno; this binary must not touch it.
    case schemaTooNew(databaseMigrations: [String], knownMigrations: [String])
    /// The request cannot be carried out in the current state (e.g. the backup file exists).
    case failedPrecondition(String)
    /// The catalog's database cannot be reached now (a PostgreSQL server that is down or out
    /// of reach); the message names it. The same request may succeed once it is back.
    case unavailable(String)

    /// Whether this is ``unavailable(_:)``: waiting and trying again is the remedy.
    public var isUnavailable: Bool {
        if case .unavailable = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .notFound(let entity, let reference):
            return "no \(entity) \"\(reference)\""
        case .conflict(let message), .invalid(let message), .failedPrecondition(let message), .unavailable(let message):
            return message
        case .schemaTooNew(let database, let known):
            let unknown = database.filter { !known.contains($0) }
            return "the catalog was written by a newer Steno (it has migration(s) \(unknown.joined(separator: ", ")) this binary does not know); run a newer stenod or restore a backup"
        }
    }
}
