import StenoJSON

/// An account's settings as the `settings` column stores them: a JSON object of strings, on
/// both backends.
package enum AccountSettingsColumn {
    /// The column's text for `settings`.
    package static func text(_ settings: [String: String]) throws -> String {
        JSONValue.object(settings.mapValues(JSONValue.string)).serializedString
    }

    /// The settings of a `settings` column; none when it cannot be read.
    package static func settings(_ text: String) -> [String: String] {
        (try? JSONValueDecoder().decode([String: String].self, from: JSONValue.parse(text))) ?? [:]
    }
}
