import StenoCatalog
import StenoJSON

// Lists passed to SQL as one JSON array that `json_each` unpacks: one cached statement whatever
// the count, instead of a statement per element or a different SQL text per list length. The
// text is written straight into bytes (no JSONValue per element): these run per ingest batch
// and per calendar sync, with thousands of elements.
extension SQLiteCatalog {
    /// A JSON array of strings, for `json_each`.
    static func jsonArray(_ strings: [String]) -> String {
        JSONArrayWriter.text(of: strings)
    }

    /// A JSON array of ids, for `json_each`.
    static func jsonArray(_ ids: some Sequence<Int64>) -> String {
        JSONArrayWriter.text(of: ids)
    }

    /// A JSON array of strings and nulls, for `json_each`.
    static func jsonArray(_ strings: [String?]) -> String {
        JSONArrayWriter.text(of: strings)
    }
}
