import ArgumentParser
import StenoAPI

/// `--limit N` and `--all` of every list command; the CLI follows the RPC cursors itself.
struct ListOptions: ParsableArguments {
    @Option(name: .long, help: "Show at most N items (default 100).")
    var limit: Int = 100

    @Flag(name: .long, help: "Show every item, however many.")
    var all = false

    func validate() throws {
        guard limit >= 1 else { throw ValidationError("--limit must be at least 1") }
    }

    /// Asks the daemon for one page (`StenoClient.send`): the items after `cursor`, at most `pageSize`.
    typealias PageRequest<Item: Codable & Sendable> = (_ cursor: String?, _ pageSize: Int) throws -> PendingCall<Page<Item>>

    /// Fetches pages until the limit (or the end, with --all); tells whether items were left out.
    func collect<Item: Codable & Sendable>(_ requestPage: PageRequest<Item>) throws -> (items: [Item], more: Bool) {
        var items: [Item] = []
        let more = try forEachPage(requestPage) { items += try $0.items() }
        return (items, more)
    }

    /// Fetches pages until the limit (or the end, with --all), handing each page to `receive`
    /// as it arrives; tells whether items were left out. `--all` asks for the largest pages
    /// the daemon serves.
    ///
    /// The next page is asked for as soon as this page's cursor is read, before its items are
    /// decoded and handed on: the daemon reads the next rows while this process prints these.
    func forEachPage<Item: Codable & Sendable>(_ requestPage: PageRequest<Item>, _ receive: (ReceivedPage<Item>) throws -> Void) throws -> Bool {
        try forEachPage(requestPage, reading: ReceivedPage.init, receive)
    }

    /// `forEachPage`, each answer read by `read` (`ReceivedPage` keeps it as values,
    /// `PendingCall.reprintedPage` as pretty-printed JSON).
    ///
    /// With `--all` every page is as large as the daemon serves, so the next one is asked for
    /// as soon as the cursor at the end of the reply has arrived, before the reply is parsed
    /// (`PendingCall.whenCursorArrives`); should the parsed cursor differ, that request's
    /// answer is skipped and the page asked for again.
    func forEachPage<Item: Codable & Sendable, Received: ListPage>(
        _ requestPage: PageRequest<Item>, reading read: (PendingCall<Page<Item>>) throws -> Received, _ receive: (Received) throws -> Void
    ) throws -> Bool {
        func pageSize(after count: Int) -> Int { all ? PageParams.maximumLimit : min(PageParams.maximumLimit, limit - count) }
        // The watcher holds `requestPage` only while its page is read.
        return try withoutActuallyEscaping(requestPage) { requestPage in
            try forEachPage(requestPage, pageSize: pageSize, reading: read, receive)
        }
    }

    private func forEachPage<Item: Codable & Sendable, Received: ListPage>(
        _ requestPage: @escaping PageRequest<Item>, pageSize: (Int) -> Int, reading read: (PendingCall<Page<Item>>) throws -> Received,
        _ receive: (Received) throws -> Void
    ) throws -> Bool {
        var count = 0
        var pending = try requestPage(nil, pageSize(0))
        while true {
            var early: (cursor: String, call: PendingCall<Page<Item>>)?
            var earlyFailure: (any Error)?
            let watched =
                all
                ? pending.whenCursorArrives { cursor in
                    do { early = (cursor, try requestPage(cursor, PageParams.maximumLimit)) } catch { earlyFailure = error }
                } : pending
            let page = try read(watched)
            if let earlyFailure { throw earlyFailure }
            count += page.count
            let more = page.nextCursor != nil && (all || count < limit)
            if more, let cursor = page.nextCursor {
                if let early, early.cursor == cursor { pending = early.call } else { pending = try requestPage(cursor, pageSize(count)) }
            }
            try receive(page)
            if !more { return page.nextCursor != nil }
        }
    }
}

/// A page as read from the daemon: how many items it holds and where the next one starts.
protocol ListPage {
    /// How many items the page holds.
    var count: Int { get }
    /// Where the next page starts; nil on the last.
    var nextCursor: String? { get }
}

extension ReprintedPage: ListPage {}

/// One page as the daemon sent it: its items as JSON, decoded into typed values only when
/// asked. `-o json` writes the JSON as it came (the daemon encodes the same types the CLI
/// decodes, so a decode and encode again gave the same JSON, at half of steno's work for
/// `--all`).
struct ReceivedPage<Item: Codable & Sendable>: ListPage {
    /// The page's items as sent.
    let json: [JSONValue]
    /// Where the next page starts; nil on the last.
    let nextCursor: String?
    private let raw: JSONValue
    private let call: PendingCall<Page<Item>>

    /// How many items the page holds.
    var count: Int { json.count }

    /// Waits for the answer to `call`.
    ///
    /// - Throws: the daemon's error, or `.unexpectedResult` when the page is not an object
    ///   with an `items` array and an optional string `nextCursor`.
    init(_ call: PendingCall<Page<Item>>) throws {
        let raw = try call.rawResult()
        guard let items = raw["items"]?.arrayValue, raw["nextCursor"].map({ $0.stringValue != nil || $0 == .null }) ?? true else {
            // Not a page: the decoder says what is wrong with it.
            _ = try call.decode(raw)
            throw StenoClientError.unexpectedResult(method: call.method, reason: "not a page of items")
        }
        self.json = items
        self.nextCursor = raw["nextCursor"]?.stringValue
        self.raw = raw
        self.call = call
    }

    /// The items as typed values (tables, CSV and notes need them).
    func items() throws -> [Item] {
        try call.decode(raw).items
    }
}
