import Foundation

/// Encodes any `Encodable` value into a `JSONValue` tree (then serialize it with
/// `JSONValue.write(to:)` / `serializedBytes`).
///
/// Conventions: `Date` → ISO 8601 string in UTC (`2026-11-20T09:30:00Z`, with `.SSS` only when
/// there are milliseconds); `Data` → base64 string; `URL` → its absolute string; `Decimal` →
/// number; `JSONValue` → itself. Integers become `.int`, except unsigned values above
/// `Int64.max`, which become (possibly rounded) `.double`. `Float` is widened through its
/// shortest text so `0.1 as Float` writes `0.1`. Optionals encoded with `encodeIfPresent`
/// (what synthesized `Codable` does) leave the key out.
public struct JSONValueEncoder: Sendable {
    /// Values handed to `Encoder.userInfo` of every encoder this creates.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// Creates an encoder.
    public init() {}

    /// Encodes `value`; throws `EncodingError.invalidValue` for dates outside years 1–9999.
    public func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        let encoder = _JSONValueEncoderImpl(codingPath: [], userInfo: userInfo)
        return try encoder.box(value, at: [])
    }
}

/// What an encoder produced: a finished value, or a container still reachable through
/// containers handed out earlier (so they are reference boxes).
enum _EncodedNode {
    case value(JSONValue)
    case array(_EncodedArray)
    case object(_EncodedObject)
    /// A `superEncoder()`: its contents are read when the tree is finalized.
    case deferred(_JSONValueEncoderImpl)

    var finalized: JSONValue {
        switch self {
        case .value(let value): return value
        case .array(let box): return box.finalized
        case .object(let box): return box.finalized
        case .deferred(let encoder): return encoder.node?.finalized ?? .object([:])
        }
    }
}

/// An object being encoded. Finished members go straight into `values`; only members still
/// open (nested containers, super encoders) wait in `pending`, so the common case finalizes
/// without copying.
final class _EncodedObject {
    var values: [String: JSONValue] = [:]
    var pending: [String: _EncodedNode] = [:]

    func set(_ value: JSONValue, for key: String) {
        values[key] = value
        if !pending.isEmpty { pending[key] = nil }  // a later write replaces an open container
    }

    func setPending(_ node: _EncodedNode, for key: String) {
        pending[key] = node
        values[key] = nil
    }

    var finalized: JSONValue {
        if pending.isEmpty { return .object(values) }
        var result = values
        for (key, node) in pending { result[key] = node.finalized }
        return .object(result)
    }
}

/// An array being encoded; open elements hold a placeholder in `items` until finalized.
final class _EncodedArray {
    var items: [JSONValue] = []
    var pending: [(index: Int, node: _EncodedNode)] = []

    func appendPending(_ node: _EncodedNode) {
        pending.append((items.count, node))
        items.append(.null)
    }

    var finalized: JSONValue {
        if pending.isEmpty { return .array(items) }
        var result = items
        for entry in pending { result[entry.index] = entry.node.finalized }
        return .array(result)
    }
}

/// The `Encoder` handed to `encode(to:)`.
final class _JSONValueEncoderImpl: Encoder {
    let codingPath: [any CodingKey]
    let sendableUserInfo: [CodingUserInfoKey: any Sendable]
    var userInfo: [CodingUserInfoKey: Any] { sendableUserInfo }
    /// What this encoder produced, if anything.
    var node: _EncodedNode?

    init(codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: any Sendable]) {
        self.codingPath = codingPath
        self.sendableUserInfo = userInfo
    }

    func storeValue(_ value: JSONValue) { node = .value(value) }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let box: _EncodedObject
        if case .object(let existing)? = node {
            box = existing
        } else {
            box = _EncodedObject()
            node = .object(box)
        }
        return KeyedEncodingContainer(_KeyedEncoder<Key>(encoder: self, box: box, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let box: _EncodedArray
        if case .array(let existing)? = node {
            box = existing
        } else {
            box = _EncodedArray()
            node = .array(box)
        }
        return _UnkeyedEncoder(encoder: self, box: box, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        _SingleValueEncoder(encoder: self)
    }

    /// Converts one value, handling the types with JSON conventions before asking the value
    /// to encode itself into a child encoder.
    func box<T: Encodable>(_ value: T, at path: [any CodingKey]) throws -> JSONValue {
        // Metatype comparisons are cheap; only the matching type pays for a cast.
        if T.self == JSONValue.self, let json = value as? JSONValue {
            return json
        }
        if T.self == Date.self, let date = value as? Date {
            guard let text = ISO8601Timestamp.string(from: date) else {
                throw EncodingError.invalidValue(date, EncodingError.Context(
                    codingPath: path, debugDescription: "date \(date.timeIntervalSince1970) is outside years 1–9999"))
            }
            return .string(text)
        }
        if T.self == Data.self, let data = value as? Data {
            return .string(data.base64EncodedString())
        }
        if T.self == URL.self, let url = value as? URL {
            return .string(url.absoluteString)
        }
        if T.self == Decimal.self, let decimal = value as? Decimal {
            let text = decimal.description
            if let integer = Int64(text) { return .int(integer) }
            return .double(Double(text) ?? .nan)
        }
        let child = _JSONValueEncoderImpl(codingPath: path, userInfo: sendableUserInfo)
        try value.encode(to: child)
        // A type that encodes nothing is an empty object, as with Foundation's JSONEncoder.
        return child.node?.finalized ?? .object([:])
    }

    static func number<T: BinaryInteger>(_ value: T) -> JSONValue {
        if let exact = Int64(exactly: value) { return .int(exact) }
        return .double(Double(value))
    }

    static func number(_ value: Float) -> JSONValue {
        guard value.isFinite else { return .double(Double(value)) }
        return .double(Double(value.description) ?? Double(value))
    }
}

struct _KeyedEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: _JSONValueEncoderImpl
    let box: _EncodedObject
    let codingPath: [any CodingKey]

    private func set(_ value: JSONValue, _ key: Key) { box.set(value, for: key.stringValue) }

    mutating func encodeNil(forKey key: Key) throws { set(.null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { set(.bool(value), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { set(.string(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { set(.double(value), key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { set(_JSONValueEncoderImpl.number(value), key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { set(.int(Int64(value)), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { set(.int(Int64(value)), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { set(.int(Int64(value)), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { set(.int(Int64(value)), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { set(.int(value), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { set(_JSONValueEncoderImpl.number(value), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { set(.int(Int64(value)), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { set(.int(Int64(value)), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { set(.int(Int64(value)), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { set(_JSONValueEncoderImpl.number(value), key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        box.set(try encoder.box(value, at: codingPath + [key]), for: key.stringValue)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let nested: _EncodedObject
        if case .object(let existing)? = box.pending[key.stringValue] {
            nested = existing
        } else {
            nested = _EncodedObject()
            box.setPending(.object(nested), for: key.stringValue)
        }
        return KeyedEncodingContainer(_KeyedEncoder<NestedKey>(encoder: encoder, box: nested, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested: _EncodedArray
        if case .array(let existing)? = box.pending[key.stringValue] {
            nested = existing
        } else {
            nested = _EncodedArray()
            box.setPending(.array(nested), for: key.stringValue)
        }
        return _UnkeyedEncoder(encoder: encoder, box: nested, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        superEncoder(named: JSONCodingKey.superKey)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        superEncoder(named: key)
    }

    private func superEncoder(named key: any CodingKey) -> any Encoder {
        let child = _JSONValueEncoderImpl(codingPath: codingPath + [key], userInfo: encoder.sendableUserInfo)
        box.setPending(.deferred(child), for: key.stringValue)
        return child
    }
}

struct _UnkeyedEncoder: UnkeyedEncodingContainer {
    let encoder: _JSONValueEncoderImpl
    let box: _EncodedArray
    let codingPath: [any CodingKey]
    var count: Int { box.items.count }

    private var nextPath: [any CodingKey] { codingPath + [JSONCodingKey(intValue: box.items.count)] }
    private func append(_ value: JSONValue) { box.items.append(value) }

    mutating func encodeNil() throws { append(.null) }
    mutating func encode(_ value: Bool) throws { append(.bool(value)) }
    mutating func encode(_ value: String) throws { append(.string(value)) }
    mutating func encode(_ value: Double) throws { append(.double(value)) }
    mutating func encode(_ value: Float) throws { append(_JSONValueEncoderImpl.number(value)) }
    mutating func encode(_ value: Int) throws { append(.int(Int64(value))) }
    mutating func encode(_ value: Int8) throws { append(.int(Int64(value))) }
    mutating func encode(_ value: Int16) throws { append(.int(Int64(value))) }
    mutating func encode(_ value: Int32) throws { append(.int(Int64(value))) }
    mutating func encode(_ value: Int64) throws { append(.int(value)) }
    mutating func encode(_ value: UInt) throws { append(_JSONValueEncoderImpl.number(value)) }
    mutating func encode(_ value: UInt8) throws { append(.int(Int64(value))) }
    mutating func encode(_ value: UInt16) throws { append(.int(Int64(value))) }
    mutating func encode(_ value: UInt32) throws { append(.int(Int64(value))) }
    mutating func encode(_ value: UInt64) throws { append(_JSONValueEncoderImpl.number(value)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        box.items.append(try encoder.box(value, at: nextPath))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let path = nextPath
        let nested = _EncodedObject()
        box.appendPending(.object(nested))
        return KeyedEncodingContainer(_KeyedEncoder<NestedKey>(encoder: encoder, box: nested, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = nextPath
        let nested = _EncodedArray()
        box.appendPending(.array(nested))
        return _UnkeyedEncoder(encoder: encoder, box: nested, codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        let child = _JSONValueEncoderImpl(codingPath: nextPath, userInfo: encoder.sendableUserInfo)
        box.appendPending(.deferred(child))
        return child
    }
}

struct _SingleValueEncoder: SingleValueEncodingContainer {
    let encoder: _JSONValueEncoderImpl
    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() throws { encoder.storeValue(.null) }
    mutating func encode(_ value: Bool) throws { encoder.storeValue(.bool(value)) }
    mutating func encode(_ value: String) throws { encoder.storeValue(.string(value)) }
    mutating func encode(_ value: Double) throws { encoder.storeValue(.double(value)) }
    mutating func encode(_ value: Float) throws { encoder.storeValue(_JSONValueEncoderImpl.number(value)) }
    mutating func encode(_ value: Int) throws { encoder.storeValue(.int(Int64(value))) }
    mutating func encode(_ value: Int8) throws { encoder.storeValue(.int(Int64(value))) }
    mutating func encode(_ value: Int16) throws { encoder.storeValue(.int(Int64(value))) }
    mutating func encode(_ value: Int32) throws { encoder.storeValue(.int(Int64(value))) }
    mutating func encode(_ value: Int64) throws { encoder.storeValue(.int(value)) }
    mutating func encode(_ value: UInt) throws { encoder.storeValue(_JSONValueEncoderImpl.number(value)) }
    mutating func encode(_ value: UInt8) throws { encoder.storeValue(.int(Int64(value))) }
    mutating func encode(_ value: UInt16) throws { encoder.storeValue(.int(Int64(value))) }
    mutating func encode(_ value: UInt32) throws { encoder.storeValue(.int(Int64(value))) }
    mutating func encode(_ value: UInt64) throws { encoder.storeValue(_JSONValueEncoderImpl.number(value)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        encoder.node = .value(try encoder.box(value, at: encoder.codingPath))
    }
}
