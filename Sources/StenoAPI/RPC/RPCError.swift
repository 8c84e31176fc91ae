/// A JSON-RPC 2.0 error object: a code, a human message, and structured data.
///
/// Standard codes (-32700…-32603) are JSON-RPC's own; Steno's application errors are in
/// -32001…-32099 and documented in `Schema/openrpc.json`.
public struct RPCError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The numeric error code.
    public var code: Int
    /// One sentence a person can act on.
    public var message: String
    /// Structured details for scripts (e.g. `{"uid": 1000}`), or nil.
    public var data: JSONValue?

    public init(code: Int, message: String, data: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    public var description: String { "\(message) (code \(code))" }
}

extension RPCError {
    /// -32700: the frame is not valid UTF-8 JSON.
    public static let parseErrorCode = -32700
    /// -32600: the JSON is not a valid request object (or the batch is empty).
    public static let invalidRequestCode = -32600
    /// -32601: no method by that name.
    public static let methodNotFoundCode = -32601
    /// -32602: the params do not match the method's schema.
    public static let invalidParamsCode = -32602
    /// -32603: the daemon failed; the message says what, the log has details.
    public static let internalErrorCode = -32603
    /// -32001: the caller's uid maps to no user.
    public static let unknownUserCode = -32001
    /// -32002: the caller may not do this.
    public static let notPermittedCode = -32002
    /// -32004: the thing named does not exist (or is not visible to the caller).
    public static let notFoundCode = -32004
    /// -32009: the change conflicts with existing state (duplicate name, email, uid…).
    public static let conflictCode = -32009
    /// -32010: the request was understood but cannot be carried out now (e.g. a file exists).
    public static let failedPreconditionCode = -32010
    /// -32011: the daemon cannot reach its catalog database now; the same request may succeed later.
    public static let unavailableCode = -32011

    public static func parseError(_ message: String, data: JSONValue? = nil) -> RPCError {
        RPCError(code: parseErrorCode, message: message, data: data)
    }
    public static func invalidRequest(_ message: String, data: JSONValue? = nil) -> RPCError {
        RPCError(code: invalidRequestCode, message: message, data: data)
    }
    public static func methodNotFound(_ method: String) -> RPCError {
        RPCError(
            code: methodNotFoundCode,
            message: "no method \"\(method)\"; rpc.discover lists the methods",
            data: ["method": .string(method)]
        )
    }
    public static func invalidParams(_ message: String, data: JSONValue? = nil) -> RPCError {
        RPCError(code: invalidParamsCode, message: message, data: data)
    }
    public static func internalError(_ message: String, data: JSONValue? = nil) -> RPCError {
        RPCError(code: internalErrorCode, message: message, data: data)
    }
    public static func unknownUser(uid: UInt32) -> RPCError {
        RPCError(
            code: unknownUserCode,
            message: "uid \(uid) is not a Steno user; an admin can add you with: steno users add NAME --uid \(uid) --email EMAIL",
            data: ["uid": .int(Int64(uid))]
        )
    }
    public static func notPermitted(_ message: String, data: JSONValue? = nil) -> RPCError {
        RPCError(code: notPermittedCode, message: message, data: data)
    }
    public static func notFound(_ message: String, data: JSONValue? = nil) -> RPCError {
        RPCError(code: notFoundCode, message: message, data: data)
    }
    public static func conflict(_ message: String, data: JSONValue? = nil) -> RPCError {
        RPCError(code: conflictCode, message: message, data: data)
    }
    public static func failedPrecondition(_ message: String, data: JSONValue? = nil) -> RPCError {
        RPCError(code: failedPreconditionCode, message: message, data: data)
    }
    public static func unavailable(_ message: String, data: JSONValue? = nil) -> RPCError {
        RPCError(code: unavailableCode, message: message, data: data)
    }
}
