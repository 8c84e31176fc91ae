import Foundation
import Logging
import NIOCore
import StenoAPI
import StenoCalendar
import StenoCatalog
import StenoCore

/// Turns one received frame into the frame to send back: parses JSON-RPC 2.0 (single or
/// batch), authorizes each request against the caller's role, runs the method, and
/// encodes the responses. Notifications get no response; a batch of notifications gets no
/// frame at all.
public final class RPCDispatcher: Sendable {
    private let methods: RPCMethodTable
    private let resolver: CallerResolver
    private let logger: Logger

    init(methods: RPCMethodTable, resolver: CallerResolver, logger: Logger) {
        self.methods = methods
        self.resolver = resolver
        self.logger = logger
    }

    /// The method names served.
    public var methodNames: [String] { methods.names }

    /// Whether these credentials belong to a user (or an admin uid); false when unsure.
    func isKnown(_ credentials: PeerCredentials) async -> Bool {
        (try? await resolver.caller(for: credentials))?.isKnown ?? false
    }

    /// The reply to a frame, with its trailing newline, or nil when nothing is to be sent.
    /// `notify` sends a frame (a notification) on the connection before the reply.
    func reply(
        to frame: ByteBuffer, from credentials: PeerCredentials, notify: @escaping @Sendable (ByteBuffer) -> Void = { _ in },
        attach: @escaping @Sendable (any ReplyAttachment) -> Bool = { _ in false }
    ) async -> ByteBuffer? {
        let message: JSONValue
        do {
            message = try frame.withUnsafeReadableBytes { try JSONValue.parse($0) }
        } catch let error as JSONParseError {
            return Self.encode(RPCResponse(id: .null, error: .parseError("invalid JSON: \(error)", data: ["offset": .int(Int64(error.offset))])).json)
        } catch {
            return Self.encode(RPCResponse(id: .null, error: .parseError("invalid JSON: \(error)")).json)
        }
        switch message {
        case .array(let requests):
            guard !requests.isEmpty else {
                return Self.encode(RPCResponse(id: .null, error: .invalidRequest("an empty batch is not a request")).json)
            }
            // The array of responses is written as they come: each one's bytes as a single
            // reply's (a serialized result copied in), so a batch is what encoding the array of
            // their trees gave.
            var bytes: [UInt8] = [UInt8(ascii: "[")]
            var answered = false
            // A cancelled batch (its client left) stops: nobody will read the rest.
            for request in requests where !Task.isCancelled {
                guard let reply = await respond(to: request, from: credentials, notify: notify, attach: attach) else { continue }
                if answered { bytes.append(UInt8(ascii: ",")) }
                answered = true
                reply.write(to: &bytes)
            }
            guard answered else { return nil }
            bytes.append(UInt8(ascii: "]"))
            bytes.append(UInt8(ascii: "\n"))
            return ByteBuffer(bytes: bytes)
        default:
            guard let reply = await respond(to: message, from: credentials, notify: notify, attach: attach) else { return nil }
            return Self.encode(reply)
        }
    }

    /// The response to one request object; nil for a notification.
    func respond(
        to message: JSONValue, from credentials: PeerCredentials, notify: @escaping @Sendable (ByteBuffer) -> Void = { _ in },
        attach: @escaping @Sendable (any ReplyAttachment) -> Bool = { _ in false }
    ) async -> RPCReply? {
        let request: RPCRequest
        do {
            request = try RPCRequest(json: message)
        } catch {
            // An invalid request is answered even without an id (JSON-RPC 2.0 §5), echoing the
            // id when one could be read.
            let id = message["id"].flatMap { id -> JSONValue? in
                switch id {
                case .string, .int, .double, .null: return id
                default: return nil
                }
            }
            return RPCReply(id: id ?? .null, outcome: .failure(error))
        }
        let outcome = await run(request, from: credentials, notify: notify, attach: attach)
        guard let id = request.id else { return nil }
        return RPCReply(id: id, outcome: outcome)
    }

    private func run(
        _ request: RPCRequest, from credentials: PeerCredentials, notify: @escaping @Sendable (ByteBuffer) -> Void,
        attach: @escaping @Sendable (any ReplyAttachment) -> Bool
    ) async -> Result<RPCResult, RPCError> {
        guard let method = methods[request.method] else { return .failure(.methodNotFound(request.method)) }
        do {
            let caller = try await resolver.caller(for: credentials)
            try Self.authorize(caller, for: method.access, method: request.method)
            let call = RPCCall(
                caller: caller, logger: logger, method: request.method,
                notify: { method, params in notify(Self.encode(RPCRequest(id: nil, method: method, params: params).json)) },
                attach: attach)
            let result = try await method.invoke(call, request.params)
            if request.method.hasPrefix("users.") && request.method != "users.list" { resolver.invalidate() }
            return .success(result)
        } catch {
            if Task.isCancelled {
                // The client went away mid-request (the database read was interrupted): not a failure of the daemon.
                return .failure(.internalError("cancelled: the client went away"))
            }
            let rpcError = RPCError(describing: error)
            // Metadata only on this path: building it for every request costs allocations.
            var requestLogger = logger
            requestLogger[metadataKey: "method"] = .string(request.method)
            requestLogger[metadataKey: "uid"] = .stringConvertible(credentials.uid)
            if rpcError.code == RPCError.internalErrorCode {
                requestLogger.error("request failed: \(String(describing: error))")
            } else {
                requestLogger.debug("request refused: \(rpcError.message)")
            }
            return .failure(rpcError)
        }
    }

    static func authorize(_ caller: Caller, for access: RPCAccess, method: String) throws(RPCError) {
        switch access {
        case .anyone:
            return
        case .user:
            guard caller.isKnown else { throw .unknownUser(uid: caller.credentials.uid) }
        case .admin:
            guard caller.isKnown else { throw .unknownUser(uid: caller.credentials.uid) }
            guard caller.isAdmin else {
                throw .notPermitted(
                    "\(method) is for admins; ask an admin, or have them make you one with: steno users update \(caller.user?.name ?? "NAME") --role admin",
                    data: ["method": .string(method), "uid": .int(Int64(caller.credentials.uid))])
            }
        }
    }

    static func encode(_ value: JSONValue) -> ByteBuffer {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        value.write(to: &bytes)
        bytes.append(UInt8(ascii: "\n"))
        return ByteBuffer(bytes: bytes)
    }

    /// One reply's frame: its bytes and the newline.
    static func encode(_ reply: RPCReply) -> ByteBuffer {
        var bytes: [UInt8] = []
        if case .success(.serialized(let result)) = reply.outcome {
            bytes.reserveCapacity(result.count + 64)
        } else {
            bytes.reserveCapacity(256)
        }
        reply.write(to: &bytes)
        bytes.append(UInt8(ascii: "\n"))
        return ByteBuffer(bytes: bytes)
    }
}

extension RPCError {
    /// The JSON-RPC error for anything a handler throws: domain errors keep their meaning,
    /// the rest is an internal error whose details go to the log.
    init(describing error: any Error) {
        switch error {
        case let error as RPCError:
            self = error
        case let error as StoreError:
            switch error {
            case .notFound(let entity, let reference):
                self = .notFound(error.description, data: ["entity": .string(entity), "reference": .string(reference)])
            case .conflict: self = .conflict(error.description)
            case .invalid: self = .invalidParams(error.description)
            case .failedPrecondition: self = .failedPrecondition(error.description)
            case .schemaTooNew: self = .internalError(error.description)
            case .unavailable: self = .unavailable(error.description)
            }
        case let error as UserValidation.Problem:
            self = .invalidParams(error.description, data: ["field": .string(error.field)])
        case let error as DecodingError:
            self = .invalidParams(error.humanDescription)
        case let error as CalendarWriteError:
            switch error {
            case .conflict(let message): self = .conflict(message)
            case .notFound(let message): self = .notFound(message)
            case .unsafe(let message), .notPermitted(let message): self = .failedPrecondition(message)
            }
        case let error as CalendarSyncError:
            // The calendar's server, not the daemon, stood in the way: the message says what to do.
            switch error {
            case .retryLater(let after, let reason):
                let seconds = Int(after.components.seconds)
                self = .failedPrecondition("\(reason); try again in \(seconds) s", data: ["retryAfterSeconds": .int(Int64(seconds))])
            case .needsCredentials(let message), .badSource(let message), .malformedResponse(let message):
                self = .failedPrecondition(message)
            }
        default:
            self = .internalError("the daemon failed: \(error); see its log for details")
        }
    }
}
