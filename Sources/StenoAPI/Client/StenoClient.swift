#if canImport(Glibc)
import Glibc
#endif

/// A blocking JSON-RPC 2.0 client for the daemon's Unix socket, for the CLI and scripts.
///
/// One request in flight at a time (`send` lets the caller work while it is answered);
/// notifications the daemon pushes in between are handed to `onNotification`. Not thread-safe: use one client per thread.
public final class StenoClient {
    /// The socket this client is connected to.
    public let socketPath: String
    /// Called with each notification (a message without an id) received while waiting.
    public var onNotification: ((RPCRequest) -> Void)?

    private let connection: UnixSocketConnection
    private var nextID: Int64 = 1

    /// Connects to the daemon.
    ///
    /// - Throws: `.daemonNotRunning` when no daemon listens on `socketPath`.
    public convenience init(socketPath: String) throws(StenoClientError) {
        try self.init(socket: SocketLocation(path: socketPath, origin: .given))
    }

    /// Connects to the daemon at `socket`, whose origin errors name.
    ///
    /// - Throws: `.daemonNotRunning` when no daemon listens there.
    public init(socket: SocketLocation) throws(StenoClientError) {
        self.socketPath = socket.path
        self.connection = try UnixSocketConnection(location: socket)
    }

    /// Calls a method with typed params and result.
    public func call<Params, Result>(_ method: RPCMethodDescriptor<Params, Result>, _ params: Params) throws(StenoClientError) -> Result {
        let pending = try send(method, params)
        return try pending.decode(try pending.rawResult())
    }

    /// Sends a request without waiting for its answer, so that the caller can work on the
    /// previous answer while the daemon works on this one (`--all` asks for the next page
    /// before it prints the current one). Answers are matched by id, so a request sent before
    /// an earlier answer is read only waits behind it.
    public func send<Params, Result>(_ method: RPCMethodDescriptor<Params, Result>, _ params: Params) throws(StenoClientError) -> PendingCall<Result> {
        let encoded: JSONValue
        do {
            encoded = try JSONValueEncoder().encode(params)
        } catch {
            throw .requestNotEncodable(method: method.name, reason: "\(error)")
        }
        return PendingCall(client: self, id: try send(method.name, params: encoded), method: method.name)
    }

    /// Calls a method whose reply carries a file descriptor (`recordings.open`): the result,
    /// and the descriptor, which the caller owns and closes.
    ///
    /// - Throws: `.protocolError` when the reply came without one.
    public func callReceivingDescriptor<Params, Result>(
        _ method: RPCMethodDescriptor<Params, Result>, _ params: Params
    ) throws(StenoClientError) -> (result: Result, descriptor: Int32) {
        let result = try call(method, params)
        guard let descriptor = connection.takeDescriptor() else {
            throw .protocolError("\(method.name) answered without the file descriptor it hands over")
        }
        return (result, descriptor)
    }

    /// Calls a method that takes no params.
    public func call<Result>(_ method: RPCMethodDescriptor<NoParams, Result>) throws(StenoClientError) -> Result {
        try call(method, NoParams())
    }

    /// Calls a method by name with raw JSON params and returns the raw result.
    ///
    /// - Throws: `.rpc` with the daemon's error when it answers with one.
    public func call(_ method: String, params: JSONValue?) throws(StenoClientError) -> JSONValue {
        try result(of: try send(method, params: params))
    }

    /// Writes a request; returns its id.
    private func send(_ method: String, params: JSONValue?) throws(StenoClientError) -> Int64 {
        let id = nextID
        nextID += 1
        let request = RPCRequest(id: .int(id), method: method, params: params)
        var frame = request.json.serializedBytes
        frame.append(UInt8(ascii: "\n"))
        try connection.write(frame)
        return id
    }

    /// Reads messages until the answer to request `id`, handing notifications on.
    ///
    /// - Throws: `.rpc` with the daemon's error when it answers with one.
    func result(of id: Int64) throws(StenoClientError) -> JSONValue {
        try result(of: id) { line throws(JSONParseError) in (try JSONValue.parse(line), ()) }.result
    }

    /// Reads messages until the answer to request `id`, each line read by `read` (which may set
    /// part of it aside as `Extra` rather than parse it), handing notifications on.
    ///
    /// - Throws: `.rpc` with the daemon's error when it answers with one.
    func result<Extra>(
        of id: Int64, reading read: ([UInt8]) throws(JSONParseError) -> (JSONValue, Extra)
    ) throws(StenoClientError) -> (result: JSONValue, extra: Extra) {
        while true {
            let line = try connection.readLine()
            let message: JSONValue
            let extra: Extra
            do {
                (message, extra) = try read(line)
            } catch {
                throw .protocolError("\(error)")
            }
            if message["id"] == nil, message["method"] != nil {
                if let notification = try? RPCRequest(json: message) { onNotification?(notification) }
                continue
            }
            let response: RPCResponse
            do {
                response = try RPCResponse(json: message)
            } catch {
                throw .protocolError(error.message)
            }
            guard response.id == .int(id) else { continue }
            switch response.outcome {
            case .success(let result): return (result, extra)
            case .failure(let error): throw .rpc(error)
            }
        }
    }
}

/// A request sent by `StenoClient.send` whose answer has not been read yet.
public struct PendingCall<Result: Decodable> {
    let client: StenoClient
    let id: Int64
    /// The method asked, for errors.
    public let method: String
    /// Told the next cursor of the page this call answers as soon as the reply has arrived,
    /// before it is parsed (see `whenCursorArrives`).
    private var cursorWatcher: ((String) -> Void)?

    init(client: StenoClient, id: Int64, method: String) {
        self.client = client
        self.id = id
        self.method = method
    }

    /// This call, with `watcher` told the page's `nextCursor` as read from the end of the
    /// reply (`PageTrailingCursor`) before the reply is parsed: `--all` asks for the next page
    /// then, so that the daemon reads its rows while this process parses and prints these.
    /// The watcher is not told when the reply is laid out otherwise; the parsed page's cursor
    /// stays the one to trust.
    public func whenCursorArrives(_ watcher: @escaping (String) -> Void) -> PendingCall {
        var call = self
        call.cursorWatcher = watcher
        return call
    }

    /// Waits for the answer and returns it as sent, not decoded yet (a list's cursor can be
    /// read from it and the next page asked for before its items are decoded).
    ///
    /// - Throws: `.rpc` with the daemon's error when it answers with one.
    public func rawResult() throws(StenoClientError) -> JSONValue {
        try reply { line throws(JSONParseError) in (try JSONValue.parse(line), ()) }.result
    }

    /// Reads the answer as `StenoClient.result(of:reading:)` does, telling the cursor watcher
    /// first.
    func reply<Extra>(
        reading read: ([UInt8]) throws(JSONParseError) -> (JSONValue, Extra)
    ) throws(StenoClientError) -> (result: JSONValue, extra: Extra) {
        guard let cursorWatcher else { return try client.result(of: id, reading: read) }
        var told = false
        return try client.result(of: id) { line throws(JSONParseError) in
            if !told, case .cursor(let cursor) = PageTrailingCursor(reply: line, id: id) {
                told = true
                cursorWatcher(cursor)
            }
            return try read(line)
        }
    }

    /// The answer as the method's result type.
    public func decode(_ raw: JSONValue) throws(StenoClientError) -> Result {
        // Pages read straight from JSON where they can be (the same values, without the bridge).
        if let direct = Result.self as? any JSONValueDecodable.Type, let value = direct.init(jsonValue: raw) as? Result { return value }
        do {
            return try JSONValueDecoder().decode(Result.self, from: raw)
        } catch let error as DecodingError {
            throw .unexpectedResult(method: method, reason: error.humanDescription)
        } catch {
            throw .unexpectedResult(method: method, reason: "\(error)")
        }
    }
}
