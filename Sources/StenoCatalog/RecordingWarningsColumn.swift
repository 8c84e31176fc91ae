import StenoJSON

/// A recording's warnings as the `warnings` column stores them: a JSON array, or NULL when
/// there are none.
package enum RecordingWarningsColumn {
    /// The column's value for `warnings`.
    package static func text(_ warnings: [String]) -> String? {
        guard !warnings.isEmpty else { return nil }
        return JSONArrayWriter.text(of: warnings)
    }

    /// Warnings from their stored JSON (none when NULL or unreadable).
    package static func warnings(fromJSON text: String?) -> [String] {
        guard let text, let list = try? JSONValueDecoder().decode([String].self, from: JSONValue.parse(text)) else { return [] }
        return list
    }
}
