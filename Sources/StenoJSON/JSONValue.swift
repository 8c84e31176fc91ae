/// A JSON value as a plain Swift tree.
///
/// Steno's JSON-RPC layer parses every frame into a `JSONValue` with its own byte-level parser
/// (see `JSONValue+Parsing.swift`) and writes replies with its own serializer, because
/// Foundation's coders are several times too slow for the daemon's throughput target.
/// Typed request and response structs move to and from this tree with `JSONValueEncoder`
/// and `JSONValueDecoder`.
///
/// Numbers keep the distinction JSON texts usually mean: a number written without fraction or
/// exponent that fits `Int64` is `.int`; every other number is `.double`.
public enum JSONValue: Sendable, Hashable {
    /// JSON `null`.
    case null
    /// JSON `true` or `false`.
    case bool(Bool)
    /// A number without fraction or exponent that fits in `Int64`.
    case int(Int64)
    /// Any other number. Non-finite values serialize as `null`.
    case double(Double)
    /// A string (any Unicode text).
    case string(String)
    /// An ordered array of values.
    case array([JSONValue])
    /// An object; keys are unique (when parsing, the last duplicate wins).
    case object([String: JSONValue])
}

// MARK: - Literals

extension JSONValue: ExpressibleByNilLiteral {
    /// Creates `.null` from `nil`.
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue: ExpressibleByBooleanLiteral {
    /// Creates `.bool` from `true` / `false`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension JSONValue: ExpressibleByIntegerLiteral {
    /// Creates `.int` from an integer literal.
    public init(integerLiteral value: Int64) { self = .int(value) }
}

extension JSONValue: ExpressibleByFloatLiteral {
    /// Creates `.double` from a floating-point literal.
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension JSONValue: ExpressibleByStringLiteral {
    /// Creates `.string` from a string literal.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension JSONValue: ExpressibleByArrayLiteral {
    /// Creates `.array` from an array literal.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
    /// Creates `.object` from a dictionary literal; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        var object: [String: JSONValue] = [:]
        object.reserveCapacity(elements.count)
        for (key, value) in elements { object[key] = value }
        self = .object(object)
    }
}

// MARK: - Description

extension JSONValue: CustomStringConvertible {
    /// The compact serialization (sorted keys), e.g. `{"a":1,"b":[true,null]}`.
    public var description: String { serializedString }
}

// MARK: - Codable

extension JSONValue: Codable {
    /// Decodes any JSON value. With `JSONValueDecoder` the subtree is taken as is; with other
    /// decoders (e.g. Foundation's `JSONDecoder`) the kinds are probed in a fixed order.
    public init(from decoder: any Decoder) throws {
        if let direct = decoder as? _JSONValueDecoderImpl {
            self = direct.value
            return
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else if let value = try? container.decode([String: JSONValue].self) {
            self = .object(value)
        } else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "value is not representable as JSON")
        }
    }

    /// Encodes the value. With `JSONValueEncoder` the subtree is stored as is.
    public func encode(to encoder: any Encoder) throws {
        if let direct = encoder as? _JSONValueEncoderImpl {
            direct.storeValue(self)
            return
        }
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .int(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .double(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .array(let values):
            var container = encoder.unkeyedContainer()
            for value in values { try container.encode(value) }
        case .object(let object):
            var container = encoder.container(keyedBy: JSONCodingKey.self)
            for (key, value) in object {
                try container.encode(value, forKey: JSONCodingKey(stringValue: key))
            }
        }
    }
}

/// A coding key for arbitrary object keys and array indices, used by the coders and by
/// error paths.
public struct JSONCodingKey: CodingKey, Sendable, Hashable {
    /// The key text (for an index, `"Index N"`, as Swift's own coders do).
    public let stringValue: String
    /// The array index, when this key is one.
    public let intValue: Int?

    /// A key naming an object member.
    public init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }

    /// A key naming an array element.
    public init(intValue: Int) {
        self.stringValue = "Index \(intValue)"
        self.intValue = intValue
    }

    /// The key `super` uses by default for `superEncoder()` / `superDecoder()`.
    static let superKey = JSONCodingKey(stringValue: "super")
}
