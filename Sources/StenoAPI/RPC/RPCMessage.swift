/// One JSON-RPC 2.0 request or notification.
public struct RPCRequest: Sendable, Hashable {
    /// The request id exactly as the caller sent it (number, string or null);
    /// nil when the member was absent, which makes the request a notification.
    public var id: JSONValue?
    /// The method name, e.g. `users.list`.
    public var method: String
    /// The params object (or array), if any.
    public var params: JSONValue?

    public init(id: JSONValue?, method: String, params: JSONValue? = nil) {
        self.id = id
        self.method = method
        self.params = params
    }

    /// A notification expects no reply.
    public var isNotification: Bool { id == nil }

    /// The request as a JSON object.
    public var json: JSONValue {
        var object: [String: JSONValue] = ["jsonrpc": "2.0", "method": .string(method)]
        if let id { object["id"] = id }
        if let params { object["params"] = params }
        return .object(object)
    }

    /// Reads a request object, validating it as JSON-RPC 2.0 requires.
    ///
    /// - Throws: `RPCError` -32600 with the reason when it is not a valid request.
    public init(json: JSONValue) throws(RPCError) {
        guard case .object(let object) = json else {
            throw .invalidRequest("a request must be a JSON object")
        }
        guard object["jsonrpc"] == .string("2.0") else {
            throw .invalidRequest("\"jsonrpc\" must be \"2.0\"")
        }
        guard case .string(let method)? = object["method"] else {
            throw .invalidRequest("\"method\" must be a string")
        }
        if let id = object["id"] {
            switch id {
            case .string, .int, .double, .null: break
            default: throw .invalidRequest("\"id\" must be a string, a number or null")
            }
        }
        if let params = object["params"] {
            switch params {
            case .object, .array: break
            default: throw .invalidRequest("\"params\" must be an object or an array")
            }
        }
        self.init(id: object["id"], method: method, params: object["params"])
    }
}

/// One JSON-RPC 2.0 response: a result or an error, with the request's id.
public struct RPCResponse: Sendable, Hashable {
    /// The id of the request answered (null when it could not be read).
    public var id: JSONValue
    /// The outcome.
    public var outcome: Result<JSONValue, RPCError>

    public init(id: JSONValue, outcome: Result<JSONValue, RPCError>) {
        self.id = id
        self.outcome = outcome
    }

    public init(id: JSONValue, result: JSONValue) { self.init(id: id, outcome: .success(result)) }
    public init(id: JSONValue, error: RPCError) { self.init(id: id, outcome: .failure(error)) }

    /// The response as a JSON object.
    public var json: JSONValue {
        var object: [String: JSONValue] = ["jsonrpc": "2.0", "id": id]
        switch outcome {
        case .success(let result):
            object["result"] = result
        case .failure(let error):
            var errorObject: [String: JSONValue] = ["code": .int(Int64(error.code)), "message": .string(error.message)]
            if let data = error.data { errorObject["data"] = data }
            object["error"] = .object(errorObject)
        }
        return .object(object)
    }

    /// Reads a response object.
    public init(json: JSONValue) throws(RPCError) {
        guard case .object(let object) = json, object["jsonrpc"] == .string("2.0") else {
            throw .internalError("the daemon sent something that is not a JSON-RPC 2.0 response")
        }
        let id = object["id"] ?? .null
        if let result = object["result"] {
            self.init(id: id, result: result)
        } else if case .object(let error)? = object["error"],
            let code = error["code"]?.intValue,
            let message = error["message"]?.stringValue
        {
            self.init(id: id, error: RPCError(code: Int(code), message: message, data: error["data"]))
        } else {
            throw .internalError("the daemon sent a response with neither a result nor an error")
        }
    }
}
