import Foundation

/// A value read straight from JSON, for results on hot paths: the client uses `init(jsonValue:)`
/// instead of the Codable bridge when a result conforms (`steno meetings --all -o csv` decodes
/// tens of thousands of rows, and the bridge's containers cost more than writing them).
///
/// It must give what `JSONValueDecoder` gives for the JSON the daemon writes (a test checks each
/// conforming type, optionals present and absent), and nil for anything it is not sure of: the
/// caller then decodes with `JSONValueDecoder`, whose error says what is wrong.
public protocol JSONValueDecodable {
    /// The value `json` holds, or nil when it is not exactly this type's encoding.
    init?(jsonValue json: JSONValue)
}

extension JSONValue {
    /// A member that may be left out: `.some(nil)` when absent or null, nil when of another
    /// kind than `read` accepts.
    @inlinable
    public func optional<T>(_ key: String, _ read: (JSONValue) -> T?) -> T?? {
        guard let member = self[key], member != .null else { return .some(nil) }
        return read(member).map { .some($0) }
    }

    /// A date as `JSONValueEncoder` writes it (`JSONValue(date:)`).
    public var dateValue: Date? {
        stringValue.flatMap(ISO8601Timestamp.date(from:))
    }
}
