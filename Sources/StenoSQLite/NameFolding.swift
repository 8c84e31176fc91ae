import Foundation
import GRDB
import StenoCatalog
import StenoCore

/// `steno_fold(text)`: SQLite's side of `AttendeeMatch.folded`. SQLite's own `lower()` and
/// `LIKE` fold only A–Z, so without it `--with zoe` would not find "Zoë".
enum NameFolding {
    /// Registered on every connection of the catalog.
    static let function = DatabaseFunction("steno_fold", argumentCount: 1, pure: true) { values in
        String.fromDatabaseValue(values[0]).map(AttendeeMatch.folded)
    }

    /// The SQL folding the column or expression `expression`.
    static func sql(_ expression: String) -> String { "steno_fold(\(expression))" }
}
