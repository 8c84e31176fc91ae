import Foundation

/// Decodes any `Decodable` value from a `JSONValue` tree.
///
/// Conventions mirror `JSONValueEncoder`: `Date` from an ISO 8601 string (with or without
/// fractional seconds, `Z` or an offset such as `+01:00`); `Data` from base64; `URL` from a
/// string; integers from `.int` or from integral `.double`s (`3.0` → 3; `3.5` is a
/// `typeMismatch`; a value out of the type's range is `dataCorrupted`); `Double`/`Float` from
/// either number case. Errors are Swift's standard `DecodingError`s with the `codingPath` of
/// the offending value; `DecodingError.humanDescription` renders them for people.
public struct JSONValueDecoder: Sendable {
    /// Values handed to `Decoder.userInfo` of every decoder this creates.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// Creates a decoder.
    public init() {}

    /// Decodes a `T` from `value`.
    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try _JSONUnboxer.unbox(type, from: value, at: [], userInfo: userInfo)
    }
}

/// The `Decoder` handed to `init(from:)`: an immutable view of one subtree.
struct _JSONValueDecoderImpl: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    let sendableUserInfo: [CodingUserInfoKey: any Sendable]
    var userInfo: [CodingUserInfoKey: Any] { sendableUserInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else {
            throw _JSONUnboxer.mismatch([String: JSONValue].self, expected: "object", value, codingPath)
        }
        return KeyedDecodingContainer(_KeyedDecoder<Key>(object: object, codingPath: codingPath, userInfo: sendableUserInfo))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let values) = value else {
            throw _JSONUnboxer.mismatch([JSONValue].self, expected: "array", value, codingPath)
        }
        return _UnkeyedDecoder(values: values, codingPath: codingPath, userInfo: sendableUserInfo)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        _SingleValueDecoder(value: value, codingPath: codingPath, userInfo: sendableUserInfo)
    }
}

/// Conversions from `JSONValue` to Swift values, shared by all containers.
enum _JSONUnboxer {
    static func unbox<T: Decodable>(
        _ type: T.Type, from value: JSONValue, at path: @autoclosure () -> [any CodingKey],
        userInfo: [CodingUserInfoKey: any Sendable]
    ) throws -> T {
        if type == JSONValue.self, let result = value as? T { return result }
        if type == Date.self {
            let text = try string(value, path(), typeName: "Date")
            guard let date = ISO8601Timestamp.date(from: text), let result = date as? T else {
                throw DecodingError.dataCorrupted(.init(
                    codingPath: path(), debugDescription: "expected an ISO 8601 date-time like 2026-11-20T09:30:00Z, found \"\(text)\""))
            }
            return result
        }
        if type == Data.self {
            let text = try string(value, path(), typeName: "Data")
            guard let data = Data(base64Encoded: text), let result = data as? T else {
                throw DecodingError.dataCorrupted(.init(codingPath: path(), debugDescription: "expected base64 data, found invalid base64"))
            }
            return result
        }
        if type == URL.self {
            let text = try string(value, path(), typeName: "URL")
            guard let url = URL(string: text), let result = url as? T else {
                throw DecodingError.dataCorrupted(.init(codingPath: path(), debugDescription: "expected a URL, found \"\(text)\""))
            }
            return result
        }
        if type == Decimal.self {
            let number: Decimal?
            switch value {
            case .int(let integer): number = Decimal(integer)
            case .double(let double): number = Decimal(string: double.description)
            default: throw mismatch(type, expected: "number", value, path())
            }
            if let number, let result = number as? T { return result }
            throw DecodingError.dataCorrupted(.init(codingPath: path(), debugDescription: "number is not a valid decimal"))
        }
        return try T(from: _JSONValueDecoderImpl(value: value, codingPath: path(), sendableUserInfo: userInfo))
    }

    static func string(
        _ value: JSONValue, _ path: @autoclosure () -> [any CodingKey], typeName: String = "String"
    ) throws -> String {
        guard case .string(let text) = value else {
            throw mismatch(String.self, expected: typeName, value, path())
        }
        return text
    }

    static func bool(_ value: JSONValue, _ path: @autoclosure () -> [any CodingKey]) throws -> Bool {
        guard case .bool(let flag) = value else { throw mismatch(Bool.self, expected: "Bool", value, path()) }
        return flag
    }

    static func double(_ value: JSONValue, _ path: @autoclosure () -> [any CodingKey]) throws -> Double {
        switch value {
        case .double(let number): return number
        case .int(let number): return Double(number)
        default: throw mismatch(Double.self, expected: "Double", value, path())
        }
    }

    static func float(_ value: JSONValue, _ path: @autoclosure () -> [any CodingKey]) throws -> Float {
        let number = try double(value, path())
        let narrowed = Float(number)
        if narrowed.isInfinite && number.isFinite {
            throw DecodingError.dataCorrupted(.init(codingPath: path(), debugDescription: "number \(number) does not fit in Float"))
        }
        return narrowed
    }

    static func integer<T: FixedWidthInteger>(_ type: T.Type, _ value: JSONValue, _ path: @autoclosure () -> [any CodingKey]) throws -> T {
        switch value {
        case .int(let number):
            if let exact = T(exactly: number) { return exact }
            throw DecodingError.dataCorrupted(.init(codingPath: path(), debugDescription: "number \(number) does not fit in \(T.self)"))
        case .double(let number):
            guard number.isFinite, number.rounded(.towardZero) == number else {
                throw DecodingError.typeMismatch(T.self, .init(
                    codingPath: path(), debugDescription: "expected \(T.self), found non-integral number \(number)"))
            }
            if let exact = T(exactly: number) { return exact }
            throw DecodingError.dataCorrupted(.init(codingPath: path(), debugDescription: "number \(number) does not fit in \(T.self)"))
        default:
            throw mismatch(T.self, expected: "\(T.self)", value, path())
        }
    }

    /// `valueNotFound` for null (so optional-aware callers can tell), `typeMismatch` otherwise;
    /// the message reads "expected String, found number".
    static func mismatch(_ type: Any.Type, expected: String, _ value: JSONValue, _ path: [any CodingKey]) -> DecodingError {
        let context = DecodingError.Context(codingPath: path, debugDescription: "expected \(expected), found \(value.kindName)")
        if value.isNull { return .valueNotFound(type, context) }
        return .typeMismatch(type, context)
    }
}

struct _SingleValueDecoder: SingleValueDecodingContainer {
    let value: JSONValue
    let codingPath: [any CodingKey]
    let userInfo: [CodingUserInfoKey: any Sendable]

    func decodeNil() -> Bool { value.isNull }
    func decode(_ type: Bool.Type) throws -> Bool { try _JSONUnboxer.bool(value, codingPath) }
    func decode(_ type: String.Type) throws -> String { try _JSONUnboxer.string(value, codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try _JSONUnboxer.double(value, codingPath) }
    func decode(_ type: Float.Type) throws -> Float { try _JSONUnboxer.float(value, codingPath) }
    func decode(_ type: Int.Type) throws -> Int { try _JSONUnboxer.integer(type, value, codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try _JSONUnboxer.integer(type, value, codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try _JSONUnboxer.integer(type, value, codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try _JSONUnboxer.integer(type, value, codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try _JSONUnboxer.integer(type, value, codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try _JSONUnboxer.integer(type, value, codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try _JSONUnboxer.integer(type, value, codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try _JSONUnboxer.integer(type, value, codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try _JSONUnboxer.integer(type, value, codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try _JSONUnboxer.integer(type, value, codingPath) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try _JSONUnboxer.unbox(type, from: value, at: codingPath, userInfo: userInfo)
    }
}
