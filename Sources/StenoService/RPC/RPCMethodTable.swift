import Foundation
import Logging
import StenoAPI
import StenoCore

/// Who may call a method.
public enum RPCAccess: Sendable, Hashable {
    /// Anyone who can open the socket, known or not (`system.version`, `rpc.discover`).
    case anyone
    /// Any known user; the method itself limits what a member sees.
    case user
    /// Admins only.
    case admin
}

/// What a method handler knows about the request it serves.
public struct RPCCall: Sendable {
    /// The caller.
    public var caller: Caller
    /// The daemon's logger.
    public var logger: Logger
    /// The method being served.
    public var method: String
    /// Sends a notification (`method`, `params`) on the caller's connection while the request
    /// runs (`system.subscribe`); does nothing where there is no connection.
    public var notify: @Sendable (String, JSONValue) -> Void = { _, _ in }
    /// Hands an open descriptor to the caller with this request's reply (`SCM_RIGHTS`); false
    /// where the connection cannot carry one (a call made in process) or one is attached already.
    var attach: @Sendable (any ReplyAttachment) -> Bool = { _ in false }
}

/// An open descriptor a reply hands over; it stays open while the value lives, and the
/// connection lets go of it once the kernel has it (or the client went away).
protocol ReplyAttachment: AnyObject, Sendable {
    var descriptor: Int32 { get }
}

/// The daemon's methods by name, each with its access rule and a handler working on JSON.
public struct RPCMethodTable: Sendable {
    /// A method as the dispatcher runs it.
    struct Entry: Sendable {
        var access: RPCAccess
        var invoke: @Sendable (RPCCall, JSONValue?) async throws -> RPCResult
    }

    private(set) var entries: [String: Entry] = [:]

    public init() {}

    /// The names of every registered method.
    public var names: [String] { entries.keys.sorted() }

    /// Registers a typed handler: params are decoded (a mismatch is -32602 with the field at
    /// fault) and the result encoded for it.
    public mutating func register<Params, Result>(
        _ method: RPCMethodDescriptor<Params, Result>, access: RPCAccess,
        _ handler: @escaping @Sendable (RPCCall, Params) async throws -> Result
    ) {
        let name = method.name
        entries[name] = Entry(access: access) { call, params in
            let decoded: Params
            if Params.self == NoParams.self, let none = NoParams() as? Params {
                // Nothing to decode; only the shape is checked.
                _ = try Self.namedParams(params, method: name)
                decoded = none
            } else {
                do {
                    decoded = try JSONValueDecoder().decode(Params.self, from: try Self.namedParams(params, method: name))
                } catch let error as DecodingError {
                    throw RPCError.invalidParams(
                        "invalid params for \(name): \(error.humanDescription)", data: ["method": .string(name)])
                }
            }
            let result = try await handler(call, decoded)
            // List pages write their bytes directly, in the request's own task; a few hot
            // results build their tree directly; the rest go through the Codable bridge.
            if let writable = result as? any JSONObjectWritable { return await Self.serialize(writable) }
            if let direct = result as? any JSONValueRepresentable { return .value(direct.jsonValue) }
            return .value(try JSONValueEncoder().encode(result))
        }
    }

    /// Results guessed at more than this many bytes are written off the connection's event loop.
    static let largeResultBytes = 64 * 1024

    /// The result's bytes. A request's task runs on its connection's event loop (see
    /// `EventLoopTaskExecutor`), which also reads and writes every other connection it owns; a
    /// page of a thousand rows takes milliseconds to write, so large ones are written on the
    /// global executor and the loop keeps serving small requests meanwhile (the two hops cost
    /// microseconds).
    static func serialize(_ result: some JSONObjectWritable) async -> RPCResult {
        guard result.estimatedJSONSize > largeResultBytes else { return .serialized(result.jsonBytes) }
        return await withTaskExecutorPreference(globalConcurrentExecutor) { .serialized(result.jsonBytes) }
    }

    /// Registers a handler that works on raw JSON.
    public mutating func registerRaw(
        _ name: String, access: RPCAccess, _ handler: @escaping @Sendable (RPCCall, JSONValue?) async throws -> JSONValue
    ) {
        entries[name] = Entry(access: access) { call, params in .value(try await handler(call, params)) }
    }

    subscript(name: String) -> Entry? { entries[name] }

    /// Steno's methods take named params: an object, or nothing.
    static func namedParams(_ params: JSONValue?, method: String) throws -> JSONValue {
        switch params {
        case nil: return .object([:])
        case .object?: return params ?? .object([:])
        case .array(let items)? where items.isEmpty: return .object([:])
        default:
            throw RPCError.invalidParams(
                "\(method) takes named params: pass an object, e.g. {\"name\": …}", data: ["method": .string(method)])
        }
    }
}
