import Foundation
import StenoCore

/// PostgreSQL's side of `AttendeeMatch.folded`, without the `unaccent` extension (which a
/// shared server may not offer): `lower()` folds case for every script, and `translate` maps
/// each accented Latin letter that folds to one ASCII letter, so `--with zoe` finds "Zoë" here
/// as on SQLite. Letters folding to more than one (ß, æ) stay as they are.
enum PostgresNameFolding {
    /// Lowercase accented letters of Latin-1 and Latin Extended-A, and what each folds to.
    static let table: (from: String, to: String) = {
        var from = "", to = ""
        for value in UInt32(0xC0)...UInt32(0x24F) {
            guard let scalar = Unicode.Scalar(value), scalar.properties.isLowercase else { continue }
            let folded = AttendeeMatch.folded(String(scalar))
            guard folded.unicodeScalars.count == 1, let only = folded.unicodeScalars.first, only.isASCII, only.properties.isAlphabetic
            else { continue }
            from.unicodeScalars.append(scalar)
            to.unicodeScalars.append(only)
        }
        return (from, to)
    }()

    /// The SQL folding `expression`; the table holds letters only, so it needs no quoting.
    static func sql(_ expression: String) -> String {
        "translate(lower(\(expression)), '\(table.from)', '\(table.to)')"
    }
}
