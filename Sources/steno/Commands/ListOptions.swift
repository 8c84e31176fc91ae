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

    /// Fetches pages until the limit (or the end, with --all); tells whether items were left out.
    func collect<Item>(_ fetchPage: (_ cursor: String?, _ pageSize: Int) throws -> Page<Item>) throws -> (items: [Item], more: Bool) {
        var items: [Item] = []
        let more = try forEachPage(fetchPage) { items += $0 }
        return (items, more)
    }

    /// Fetches pages until the limit (or the end, with --all), handing each page's items to
    /// `receive` as it arrives; tells whether items were left out. `--all` asks for the
    /// largest pages the daemon serves.
    func forEachPage<Item>(
        _ fetchPage: (_ cursor: String?, _ pageSize: Int) throws -> Page<Item>, _ receive: ([Item]) throws -> Void
    ) throws -> Bool {
        var count = 0
        var cursor: String?
        repeat {
            let wanted = all ? PageParams.maximumLimit : min(PageParams.maximumLimit, limit - count)
            let page = try fetchPage(cursor, wanted)
            try receive(page.items)
            count += page.items.count
            cursor = page.nextCursor
        } while cursor != nil && (all || count < limit)
        return cursor != nil
    }
}
