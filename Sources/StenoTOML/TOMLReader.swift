import StenoJSON

/// Why a TOML document was rejected, with the one-based line and column (in characters).
public struct TOMLError: Error, Equatable, Sendable, CustomStringConvertible {
    /// One-based line of the problem.
    public let line: Int
    /// One-based column (in Unicode scalars) of the problem.
    public let column: Int
    /// What is wrong, e.g. `duplicate key "workers"`.
    public let message: String

    /// Creates an error at a position.
    public init(line: Int, column: Int, message: String) {
        self.line = line
        self.column = column
        self.message = message
    }

    /// For example `TOML error at line 7, column 1: duplicate key "workers"`.
    public var description: String { "TOML error at line \(line), column \(column): \(message)" }
}

/// Reads TOML 1.0 documents into a `JSONValue` tree, which `JSONValueDecoder` then turns into
/// typed configuration.
///
/// Mapping: tables → objects, arrays and arrays of tables → arrays, strings → `.string`,
/// integers → `.int`, floats → `.double` (`inf` / `nan` map to the non-finite doubles; a float
/// that overflows a double, like `1e400`, is an error),
/// booleans → `.bool`. Offset date-times, local date-times, local dates and local times become
/// `.string`s in ISO 8601 form as written, normalized to an upper-case `T` separator and `Z`
/// (e.g. `1979-05-27 07:32:00z` → `"1979-05-27T07:32:00Z"`). CRLF line endings inside
/// multi-line strings read as LF; a leading byte-order mark is skipped. Arrays and inline tables
/// may nest at most 128 levels.
public enum TOMLReader {
    /// Parses a whole TOML document; the result is always an `.object`.
    public static func parse(_ text: String) throws(TOMLError) -> JSONValue {
        var parser = _TOMLParser(bytes: Array(text.utf8))
        return try parser.parseDocument()
    }
}

/// A table under construction. Reference semantics let `[a.b]` headers and dotted keys reach
/// back into tables created earlier.
final class _TOMLTable {
    /// How the table came to exist; decides which later definitions are legal.
    enum Origin {
        case explicit  // the root, a `[header]`, or an element of `[[array]]`
        case implicit  // an intermediate of a header such as `a` in `[a.b]`; may be defined later
        case dotted  // created by a dotted key such as `a.b = 1`; closed to headers
    }

    var origin: Origin
    var entries: [String: _TOMLNode] = [:]

    init(_ origin: Origin) { self.origin = origin }

    var json: JSONValue {
        .object(entries.mapValues { node in
            switch node {
            case .value(let value): return value
            case .table(let table): return table.json
            case .tableArray(let tables): return .array(tables.map(\.json))
            }
        })
    }
}

enum _TOMLNode {
    /// Any finished value, including static arrays and inline tables (both immutable).
    case value(JSONValue)
    case table(_TOMLTable)
    case tableArray([_TOMLTable])
}
