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
    func collect<Item>(_ requestPage: PageRequest<Item>) throws -> (items: [Item], more: Bool) {
        var items: [Item] = []
        let more = try forEachPage(requestPage) { items += $0 }
        return (items, more)
    }

    /// Fetches pages until the limit (or the end, with --all), handing each page's items to
    /// `receive` as it arrives; tells whether items were left out. `--all` asks for the
    /// largest pages the daemon serves.
    ///
    /// The next page is asked for as soon as this page's cursor is read, before its items are
    /// decoded and handed on: the daemon reads the next rows while this process prints these.
    func forEachPage<Item>(_ requestPage: PageRequest<Item>, _ receive: ([Item]) throws -> Void) throws -> Bool {
        func pageSize(after count: Int) -> Int { all ? PageParams.maximumLimit : min(PageParams.maximumLimit, limit - count) }
        var count = 0
        var pending = try requestPage(nil, pageSize(after: 0))
        while true {
            let raw = try pending.rawResult()
            // A cursor or item list of the wrong shape fails in `decode` below.
            let cursor = raw["nextCursor"]?.stringValue
            count += raw["items"]?.arrayValue?.count ?? 0
            let more = cursor != nil && (all || count < limit)
            let current = pending
            if more, let cursor { pending = try requestPage(cursor, pageSize(after: count)) }
            try receive(current.decode(raw).items)
            if !more { return cursor != nil }
        }
    }
}
