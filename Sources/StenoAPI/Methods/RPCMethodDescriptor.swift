/// A JSON-RPC method's name with its params and result types, shared by the daemon
/// (which registers a handler for it) and the client (which calls it), so both sides
/// agree on the wire shape at compile time.
public struct RPCMethodDescriptor<Params: Codable & Sendable, Result: Codable & Sendable>: Sendable {
    /// The wire name, e.g. `users.add`.
    public let name: String

    public init(_ name: String) { self.name = name }
}

/// Params of a method that takes none. Decodes from an absent or empty `params`.
public struct NoParams: Codable, Sendable, Hashable {
    public init() {}
}

/// One page of a list, with the opaque cursor of the next page (nil on the last page).
public struct Page<Item: Codable & Sendable>: Codable, Sendable {
    /// The items of this page.
    public var items: [Item]
    /// Pass as `cursor` to get the next page; nil when there is none.
    public var nextCursor: String?

    public init(items: [Item], nextCursor: String?) {
        self.items = items
        self.nextCursor = nextCursor
    }
}

/// The paging params every list method accepts.
public struct PageParams: Codable, Sendable, Hashable {
    /// The `nextCursor` of the previous page; nil for the first page.
    public var cursor: String?
    /// Items per page, 1…1000 (default 100).
    public var limit: Int?

    public init(cursor: String? = nil, limit: Int? = nil) {
        self.cursor = cursor
        self.limit = limit
    }

    /// The default and the largest page size.
    public static let defaultLimit = 100
    public static let maximumLimit = 1000
}
