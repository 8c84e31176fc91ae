import StenoAPI

/// A method's result as the dispatcher sends it: a JSON tree, or compact JSON the method's
/// result wrote straight into bytes (the list pages, `JSONObjectWritable`), which the reply's
/// envelope carries as they are.
package enum RPCResult: Sendable {
    /// A tree, serialized with the reply (keys sorted).
    case value(JSONValue)
    /// One JSON value already serialized, compact, with sorted keys: exactly the bytes the tree
    /// of the same result would serialize to.
    case serialized([UInt8])

    /// The compact bytes of the result.
    package var bytes: [UInt8] {
        switch self {
        case .value(let value): return value.serializedBytes
        case .serialized(let bytes): return bytes
        }
    }

    /// The result as a tree, parsed when it was serialized: for tests and for reading a
    /// benchmark's ids outside its timing, not for the daemon's own path.
    package func json() throws -> JSONValue {
        switch self {
        case .value(let value): return value
        case .serialized(let bytes): return try JSONValue.parse(bytes)
        }
    }
}

/// One response as the dispatcher writes it: an `RPCResponse` whose result may be serialized
/// already.
struct RPCReply: Sendable {
    /// The id of the request answered (null when it could not be read).
    var id: JSONValue
    /// The outcome.
    var outcome: Result<RPCResult, RPCError>

    /// Appends the bytes `RPCResponse.json` serializes to: `{"id":…,"jsonrpc":"2.0","result":…}`
    /// (keys sorted), a serialized result copied in as it is rather than parsed into the tree.
    func write(to out: inout [UInt8]) {
        switch outcome {
        case .success(.serialized(let result)):
            JSONObjectWriter.write(into: &out) { object in
                object.member("id", id)
                object.member("jsonrpc", "2.0")
                object.member("result", serialized: result)
            }
        case .success(.value(let result)):
            RPCResponse(id: id, result: result).json.write(to: &out)
        case .failure(let error):
            RPCResponse(id: id, error: error).json.write(to: &out)
        }
    }
}
