import StenoAPI

/// Tables and JSON for programs built from a command's JSON result, so that every command has
/// a CSV form and no JSON value hides more JSON inside a string.
enum JSONTable {
    /// Keys whose string values are JSON text (a job's payload and result).
    static let embeddedJSONKeys: Set<String> = ["payload", "result"]

    /// `value` with the JSON text under `embeddedJSONKeys` turned into the values it holds.
    static func expandingEmbeddedJSON(_ value: JSONValue) -> JSONValue {
        // Most lists (meetings, recordings) have no such key: keep their tree rather than
        // rebuild every object of tens of thousands.
        hasEmbeddedJSONKey(value) ? expanding(value) : value
    }

    private static func hasEmbeddedJSONKey(_ value: JSONValue) -> Bool {
        switch value {
        case .array(let values): return values.contains(where: hasEmbeddedJSONKey)
        case .object(let object):
            return embeddedJSONKeys.contains { object[$0]?.stringValue != nil } || object.values.contains(where: hasEmbeddedJSONKey)
        default: return false
        }
    }

    private static func expanding(_ value: JSONValue) -> JSONValue {
        switch value {
        case .array(let values):
            return .array(values.map(expanding))
        case .object(let object):
            var expanded: [String: JSONValue] = [:]
            for (key, member) in object {
                if embeddedJSONKeys.contains(key), case .string(let text) = member, let parsed = try? JSONValue.parse(text),
                    parsed.arrayValue != nil || parsed.objectValue != nil
                {
                    expanded[key] = parsed
                } else {
                    expanded[key] = expanding(member)
                }
            }
            return .object(expanded)
        default:
            return value
        }
    }

    /// A list of objects as one row each (a column per key); anything else as FIELD, VALUE
    /// rows, nested objects flattened to dotted fields (`meeting.title`).
    static func table(from value: JSONValue) -> TableWriter {
        if case .array(let items) = value, items.allSatisfy({ $0.objectValue != nil }) {
            let keys = Set(items.flatMap { $0.objectValue.map { Array($0.keys) } ?? [] }).sorted()
            var table = TableWriter(keys)
            for item in items { table.add(keys.map { cell(item[$0] ?? .null) }) }
            return table
        }
        var table = TableWriter(["FIELD", "VALUE"])
        for (field, member) in fields(of: value, prefix: "") { table.add([field, cell(member)]) }
        return table
    }

    private static func fields(of value: JSONValue, prefix: String) -> [(String, JSONValue)] {
        guard let object = value.objectValue else { return [(prefix.isEmpty ? "value" : prefix, value)] }
        return object.keys.sorted().flatMap { key -> [(String, JSONValue)] in
            let name = prefix.isEmpty ? key : prefix + "." + key
            guard let member = object[key] else { return [] }
            return member.objectValue != nil ? fields(of: member, prefix: name) : [(name, member)]
        }
    }

    /// One value as a cell: text as is, numbers and flags in JSON form, lists as compact JSON.
    private static func cell(_ value: JSONValue) -> String {
        switch value {
        case .null: return ""
        case .string(let text): return text
        default: return value.serializedString
        }
    }
}
