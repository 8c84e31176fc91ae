import Foundation
import StenoAPI
import StenoCatalog
import StenoCore

/// Opaque page cursors: the last id of a page, wrapped so clients treat it as a token and
/// the encoding may change without breaking them.
enum PageCursor {
    static func encode(_ lastID: Int64) -> String {
        Data("v1:\(lastID)".utf8).base64EncodedString()
    }

    static func decode(_ cursor: String) throws(RPCError) -> Int64 {
        guard let data = Data(base64Encoded: cursor), let text = String(data: data, encoding: .utf8),
            text.hasPrefix("v1:"), let id = Int64(text.dropFirst(3))
        else {
            throw .invalidParams("the cursor is not one this daemon issued; start again without a cursor",
                                 data: ["cursor": .string(cursor)])
        }
        return id
    }

    /// The page size asked for, checked against the bounds.
    static func limit(_ requested: Int?) throws(RPCError) -> Int {
        let limit = requested ?? PageParams.defaultLimit
        guard (1...PageParams.maximumLimit).contains(limit) else {
            throw .invalidParams("limit must be between 1 and \(PageParams.maximumLimit)", data: ["limit": .int(Int64(limit))])
        }
        return limit
    }
}

extension PageCursor {
    /// One page of an id-ordered list held in memory (small lists: accounts, calendars).
    static func page<Item>(_ items: [Item], id: (Item) -> Int64, cursor: String?, limit requested: Int?) throws(RPCError) -> Page<Item> {
        let limit = try limit(requested)
        let after = try cursor.map(decode) ?? Int64.min
        let rest = items.filter { id($0) > after }
        let page = Array(rest.prefix(limit))
        return Page(items: page, nextCursor: rest.count > limit ? page.last.map { encode(id($0)) } : nil)
    }
}

extension PageCursor {
    /// A page of a list read by position: `fetched` holds up to `limit + 1` items from
    /// `offset`; the cursor holds the next position.
    static func offsetPage<Item>(_ fetched: [Item], offset: Int, limit: Int) -> Page<Item> {
        let page = Array(fetched.prefix(limit))
        return Page(items: page, nextCursor: fetched.count > limit ? encode(Int64(offset + limit)) : nil)
    }

    /// The position a cursor of ``offsetPage(_:offset:limit:)`` holds (0 without one).
    static func offset(_ cursor: String?) throws(RPCError) -> Int {
        let offset = try cursor.map(decode) ?? 0
        guard offset >= 0, offset <= Int64(Int32.max) else {
            throw .invalidParams("the cursor is not one this daemon issued; start again without a cursor")
        }
        return Int(offset)
    }
}

extension PageCursor {
    /// Where a meetings page continues: after a meeting (the cursors this daemon issues), or at
    /// a position (cursors of ``offsetPage(_:offset:limit:)`` issued before, still honoured).
    enum MeetingContinuation: Equatable {
        case start
        case offset(Int)
        case after(MeetingPosition)
    }

    /// The cursor continuing after `meeting`: its start and id.
    static func encode(after meeting: MeetingPosition) -> String {
        Data("m1:\(meeting.startMilliseconds.map(String.init) ?? "-"):\(meeting.id)".utf8).base64EncodedString()
    }

    /// Reads a meetings cursor: one of ``encode(after:)``, or a position.
    static func meetingContinuation(_ cursor: String?) throws(RPCError) -> MeetingContinuation {
        guard let cursor else { return .start }
        if let data = Data(base64Encoded: cursor), let text = String(data: data, encoding: .utf8), text.hasPrefix("m1:") {
            let parts = text.dropFirst(3).split(separator: ":", omittingEmptySubsequences: false)
            if parts.count == 2, let id = Int64(parts[1]), parts[0] == "-" || Int64(parts[0]) != nil {
                return .after(MeetingPosition(startMilliseconds: Int64(parts[0]), id: id))
            }
        }
        return .offset(try offset(cursor))
    }

    /// A page of meetings read after a position: `fetched` holds up to `limit + 1`; the
    /// cursor continues after the page's last meeting.
    static func meetingPage(_ fetched: [MeetingSummary], limit: Int) -> Page<MeetingSummary> {
        let page = Array(fetched.prefix(limit))
        return Page(items: page, nextCursor: fetched.count > limit ? page.last.map { encode(after: MeetingPosition($0)) } : nil)
    }
}

extension PageCursor {
    /// The cursor continuing a recordings listing in `order` after `recording` (in id order,
    /// the plain cursor of its id).
    static func encode(after recording: Recording, in order: RecordingOrder) -> String {
        guard order != .byID else { return encode(recording.id) }
        let position = order.position(after: recording)
        return Data("r1:\(order.sort.rawValue):\(order.descending ? "d" : "a"):\(position.key):\(position.id)".utf8).base64EncodedString()
    }

    /// Where a recordings listing in `order` continues: after the id (in id order) or the
    /// position a cursor of ``encode(after:in:)`` holds; a cursor of another order is refused.
    static func recordingContinuation(_ cursor: String?, in order: RecordingOrder) throws(RPCError) -> (afterID: Int64?, after: RecordingPosition?) {
        guard let cursor else { return (nil, nil) }
        guard order != .byID else { return (try decode(cursor), nil) }
        let wrongOrder = RPCError.invalidParams(
            "the cursor continues a listing in another order; ask for the same sort and direction, or start again without a cursor",
            data: ["cursor": .string(cursor)])
        guard let data = Data(base64Encoded: cursor), let text = String(data: data, encoding: .utf8), text.hasPrefix("r1:") else {
            _ = try decode(cursor)
            throw wrongOrder
        }
        let parts = text.dropFirst(3).split(separator: ":", omittingEmptySubsequences: false)
        // A whole-number key must be one a 64-bit integer holds: a forged one is refused, never converted.
        guard parts.count == 4, let key = Double(parts[2]), key.isFinite, !order.keyIsInteger || Int64(exactly: key) != nil,
            let id = Int64(parts[3])
        else {
            throw .invalidParams("the cursor is not one this daemon issued; start again without a cursor", data: ["cursor": .string(cursor)])
        }
        guard parts[0] == order.sort.rawValue, parts[1] == (order.descending ? "d" : "a") else { throw wrongOrder }
        return (nil, RecordingPosition(key: key, id: id))
    }
}
