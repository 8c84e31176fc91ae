import Foundation

/// A value that builds its JSON directly, for small results called often: the RPC server uses
/// `jsonValue` instead of the Codable bridge when a result conforms. The output must equal
/// what `JSONValueEncoder` produces (a test checks each conforming type). Large results (list
/// pages) write their bytes instead, with no tree at all: see `JSONObjectWritable`.
public protocol JSONValueRepresentable {
    /// The value as JSON, identical to its `Encodable` encoding.
    var jsonValue: JSONValue { get }
}

extension JSONValue {
    /// A date as `JSONValueEncoder` writes it.
    public init(date: Date) {
        self = ISO8601Timestamp.string(from: date).map(JSONValue.string) ?? .null
    }
}
