#if canImport(Glibc)
import Glibc
#endif

/// A blocking JSON-RPC 2.0 client for the daemon's Unix socket, for the CLI and scripts.
///
/// One request in flight at a time; notifications the daemon pushes in between are handed
/// to `onNotification`. Not thread-safe: use one client per thread.
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
        let encoded: JSONValue
        do {
            encoded = try JSONValueEncoder().encode(params)
        } catch {
            throw .protocolError("cannot encode params of \(method.name): \(error)")
        }
        let result = try call(method.name, params: encoded)
        do {
            return try JSONValueDecoder().decode(Result.self, from: result)
        } catch let error as DecodingError {
            throw .unexpectedResult(method: method.name, reason: error.humanDescription)
        } catch {
            throw .unexpectedResult(method: method.name, reason: "\(error)")
        }
    }

    /// Calls a method that takes no params.
    public func call<Result>(_ method: RPCMethodDescriptor<NoParams, Result>) throws(StenoClientError) -> Result {
        try call(method, NoParams())
    }

    /// Calls a method by name with raw JSON params and returns the raw result.
    ///
    /// - Throws: `.rpc` with the daemon's error when it answers with one.
    public func call(_ method: String, params: JSONValue?) throws(StenoClientError) -> JSONValue {
        let id = nextID
        nextID += 1
        let request = RPCRequest(id: .int(id), method: method, params: params)
        var frame = request.json.serializedBytes
        frame.append(UInt8(ascii: "\n"))
        try connection.write(frame)
        while true {
            let line = try connection.readLine()
            let message: JSONValue
            do {
                message = try JSONValue.parse(line)
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
            case .success(let result): return result
            case .failure(let error): throw .rpc(error)
            }
        }
    }
}
