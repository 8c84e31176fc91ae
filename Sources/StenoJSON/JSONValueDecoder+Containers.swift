/// Keyed access to an object's members for `JSONValueDecoder`.
struct _KeyedDecoder<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let object: [String: JSONValue]
    let codingPath: [any CodingKey]
    let userInfo: [CodingUserInfoKey: any Sendable]

    var allKeys: [Key] { object.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { object[key.stringValue] != nil }

    /// The member for `key`, or `keyNotFound` with the container's path.
    private func member(_ key: Key) throws -> JSONValue {
        guard let value = object[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(
                codingPath: codingPath, debugDescription: "no value for key \"\(key.stringValue)\""))
        }
        return value
    }

    private func path(_ key: Key) -> [any CodingKey] { codingPath + [key] }

    func decodeNil(forKey key: Key) throws -> Bool { try member(key).isNull }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try _JSONUnboxer.bool(member(key), path(key)) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try _JSONUnboxer.string(member(key), path(key)) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try _JSONUnboxer.double(member(key), path(key)) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try _JSONUnboxer.float(member(key), path(key)) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try _JSONUnboxer.integer(type, member(key), path(key)) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try _JSONUnboxer.integer(type, member(key), path(key)) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try _JSONUnboxer.integer(type, member(key), path(key)) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try _JSONUnboxer.integer(type, member(key), path(key)) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try _JSONUnboxer.integer(type, member(key), path(key)) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try _JSONUnboxer.integer(type, member(key), path(key)) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try _JSONUnboxer.integer(type, member(key), path(key)) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try _JSONUnboxer.integer(type, member(key), path(key)) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try _JSONUnboxer.integer(type, member(key), path(key)) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try _JSONUnboxer.integer(type, member(key), path(key)) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try _JSONUnboxer.unbox(type, from: member(key), at: path(key), userInfo: userInfo)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let value = try member(key)
        guard case .object(let nested) = value else {
            throw _JSONUnboxer.mismatch([String: JSONValue].self, expected: "object", value, path(key))
        }
        return KeyedDecodingContainer(_KeyedDecoder<NestedKey>(object: nested, codingPath: path(key), userInfo: userInfo))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let value = try member(key)
        guard case .array(let values) = value else {
            throw _JSONUnboxer.mismatch([JSONValue].self, expected: "array", value, path(key))
        }
        return _UnkeyedDecoder(values: values, codingPath: path(key), userInfo: userInfo)
    }

    func superDecoder() throws -> any Decoder {
        let key = JSONCodingKey.superKey
        return _JSONValueDecoderImpl(
            value: object[key.stringValue] ?? .null, codingPath: codingPath + [key], sendableUserInfo: userInfo)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        _JSONValueDecoderImpl(value: object[key.stringValue] ?? .null, codingPath: path(key), sendableUserInfo: userInfo)
    }
}

/// Sequential access to an array's elements for `JSONValueDecoder`.
struct _UnkeyedDecoder: UnkeyedDecodingContainer {
    let values: [JSONValue]
    let codingPath: [any CodingKey]
    let userInfo: [CodingUserInfoKey: any Sendable]
    private(set) var currentIndex = 0

    init(values: [JSONValue], codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: any Sendable]) {
        self.values = values
        self.codingPath = codingPath
        self.userInfo = userInfo
    }

    var count: Int? { values.count }
    var isAtEnd: Bool { currentIndex >= values.count }

    private var currentPath: [any CodingKey] { codingPath + [JSONCodingKey(intValue: currentIndex)] }

    /// The next element (not consumed), or `valueNotFound` past the end.
    private func peek(_ type: Any.Type) throws -> JSONValue {
        guard currentIndex < values.count else {
            throw DecodingError.valueNotFound(type, .init(
                codingPath: currentPath, debugDescription: "expected \(type), found end of array (\(values.count) elements)"))
        }
        return values[currentIndex]
    }

    /// Decodes the next element with `body` and advances only on success, as Swift's coders do.
    private mutating func next<T>(
        _ type: Any.Type, _ body: (JSONValue, () -> [any CodingKey]) throws -> T
    ) throws -> T {
        let codingPath = self.codingPath
        let index = currentIndex
        // The path is built only when needed (errors, nested decoders), not per element.
        let result = try body(peek(type)) { codingPath + [JSONCodingKey(intValue: index)] }
        currentIndex += 1
        return result
    }

    mutating func decodeNil() throws -> Bool {
        guard try peek(Never.self).isNull else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type) { try _JSONUnboxer.bool($0, $1()) } }
    mutating func decode(_ type: String.Type) throws -> String { try next(type) { try _JSONUnboxer.string($0, $1()) } }
    mutating func decode(_ type: Double.Type) throws -> Double { try next(type) { try _JSONUnboxer.double($0, $1()) } }
    mutating func decode(_ type: Float.Type) throws -> Float { try next(type) { try _JSONUnboxer.float($0, $1()) } }
    mutating func decode(_ type: Int.Type) throws -> Int { try next(type) { try _JSONUnboxer.integer(type, $0, $1()) } }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next(type) { try _JSONUnboxer.integer(type, $0, $1()) } }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next(type) { try _JSONUnboxer.integer(type, $0, $1()) } }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next(type) { try _JSONUnboxer.integer(type, $0, $1()) } }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next(type) { try _JSONUnboxer.integer(type, $0, $1()) } }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next(type) { try _JSONUnboxer.integer(type, $0, $1()) } }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next(type) { try _JSONUnboxer.integer(type, $0, $1()) } }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next(type) { try _JSONUnboxer.integer(type, $0, $1()) } }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next(type) { try _JSONUnboxer.integer(type, $0, $1()) } }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next(type) { try _JSONUnboxer.integer(type, $0, $1()) } }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let userInfo = self.userInfo
        return try next(type) { try _JSONUnboxer.unbox(type, from: $0, at: $1(), userInfo: userInfo) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let userInfo = self.userInfo
        return try next([String: JSONValue].self) { value, lazyPath in
            let path = lazyPath()
            guard case .object(let object) = value else {
                throw _JSONUnboxer.mismatch([String: JSONValue].self, expected: "object", value, path)
            }
            return KeyedDecodingContainer(_KeyedDecoder<NestedKey>(object: object, codingPath: path, userInfo: userInfo))
        }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let userInfo = self.userInfo
        return try next([JSONValue].self) { value, lazyPath in
            let path = lazyPath()
            guard case .array(let values) = value else {
                throw _JSONUnboxer.mismatch([JSONValue].self, expected: "array", value, path)
            }
            return _UnkeyedDecoder(values: values, codingPath: path, userInfo: userInfo)
        }
    }

    mutating func superDecoder() throws -> any Decoder {
        let userInfo = self.userInfo
        return try next(JSONValue.self) { value, path in
            _JSONValueDecoderImpl(value: value, codingPath: path(), sendableUserInfo: userInfo)
        }
    }
}
