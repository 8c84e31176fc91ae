extension JSONValue {
    /// The member named `key`, or nil when this is not an object or has no such member.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let object) = self else { return nil }
        return object[key]
    }

    /// The element at `index`, or nil when this is not an array or the index is out of range.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let values) = self, values.indices.contains(index) else { return nil }
        return values[index]
    }

    /// The text of a `.string`, else nil.
    public var stringValue: String? {
        guard case .string(let text) = self else { return nil }
        return text
    }

    /// The number as an `Int64`: an `.int`, or a `.double` with an integral value in range
    /// (so `3.0` gives 3 but `3.5` gives nil).
    public var intValue: Int64? {
        switch self {
        case .int(let number): return number
        case .double(let number): return Int64(exactly: number)
        default: return nil
        }
    }

    /// The number as a `Double` (`.int` converts, possibly rounding beyond 2^53).
    public var doubleValue: Double? {
        switch self {
        case .int(let number): return Double(number)
        case .double(let number): return number
        default: return nil
        }
    }

    /// The flag of a `.bool`, else nil.
    public var boolValue: Bool? {
        guard case .bool(let flag) = self else { return nil }
        return flag
    }

    /// The elements of an `.array`, else nil.
    public var arrayValue: [JSONValue]? {
        guard case .array(let values) = self else { return nil }
        return values
    }

    /// The members of an `.object`, else nil.
    public var objectValue: [String: JSONValue]? {
        guard case .object(let object) = self else { return nil }
        return object
    }

    /// Whether this is `.null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// A short name of the kind of value, as used in error messages: `null`, `boolean`,
    /// `number`, `string`, `array` or `object`.
    public var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .int, .double: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}
