import Foundation
import StenoAPI
import StenoCore

/// Writes a list command's items as their pages arrive, so that `--all` over tens of thousands
/// of rows shows its first rows at once and a script reading the output starts working while
/// later pages are fetched.
///
/// JSON is one array, written page by page (the same text `Output.print` writes for the
/// whole list), from the reply's bytes where the items hold no embedded JSON; CSV writes its
/// header once and each page's rows. Tables for people are held until the list is complete:
/// their column widths depend on every row.
struct ListWriter<Item: Codable & Sendable> {
    let format: OutputFormat
    /// The table (or CSV) of some items; called per page for CSV, once for tables.
    let table: ([Item]) -> TableWriter
    private var held: [Item] = []
    /// Whether the array's opening bracket or the CSV header is out.
    private var started = false

    init(format: OutputFormat, table: @escaping ([Item]) -> TableWriter) {
        self.format = format
        self.table = table
    }

    /// Writes a page of JSON from its items' values, with embedded JSON expanded (see
    /// `JSONTable.expandingEmbeddedJSON`).
    mutating func writeExpanding(_ page: ReceivedPage<Item>) {
        guard !page.json.isEmpty else { return }
        writeJSON(JSONTable.expandingEmbeddedJSON(.array(page.json)).prettyPrintedBytes())
    }

    /// Writes a page of JSON pretty-printed from the reply's bytes (items without embedded
    /// JSON, see `PlainJSONItem`).
    mutating func write(_ page: ReprintedPage) {
        guard page.count > 0 else { return }
        writeJSON(page.items)
    }

    /// Writes CSV rows or holds a table's.
    mutating func write(_ items: [Item]) {
        switch format {
        case .json:
            break  // JSON is written from the pages
        case .csv:
            guard !items.isEmpty else { return }
            Output.line(table(items).renderCSV(header: !started))
            started = true
        case .table, .wide:
            held += items
        }
    }

    /// Writes a page's items, given as a pretty-printed non-empty array, into the one array.
    private mutating func writeJSON(_ array: [UInt8]) {
        // The page printed as an array is its elements at the first level: "[" + "\n  …,\n  …" + "\n]".
        // Its own bracket is replaced rather than the array changed (a copy of the whole page).
        let bytes = TerminalText.escapingJSON(array)
        Output.write(started ? "," : "[")
        Output.write(bytes: bytes.dropFirst().dropLast(2))
        started = true
    }

    /// Ends the list: closes the JSON array, or writes the held table (for people, `empty`
    /// instead of a table without rows).
    mutating func finish(empty: (() -> String)? = nil) {
        switch format {
        case .json: Output.line(started ? "\n]" : "[]")
        case .csv: if !started { Output.line(table([]).renderCSV()) }
        case .table, .wide:
            if held.isEmpty, let empty { return Output.say(empty()) }
            Output.sayTable(table(held), format: format)
        }
    }
}

/// Item types whose JSON never holds a member `JSONTable.embeddedJSONKeys` names, at any
/// depth: their pages need no expansion, so `-o json` writes them pretty-printed straight from
/// the reply's bytes (no tree of tens of thousands of values built, walked and freed).
protocol PlainJSONItem {}

extension MeetingSummary: PlainJSONItem {}
extension Recording: PlainJSONItem {}

extension ListOptions {
    /// Fetches pages until the limit (or the end, with `--all`) and writes them in `format` as
    /// they arrive (see `ListWriter`), then says on standard error when items were left out.
    /// `observe` sees each page's items (for notes written after the list).
    func write<Item: Codable & Sendable>(
        _ noun: String, format: OutputFormat, table: @escaping ([Item]) -> TableWriter, observe: (([Item]) -> Void)? = nil,
        empty: (() -> String)? = nil, requestPage: PageRequest<Item>
    ) throws {
        var writer = ListWriter(format: format, table: table)
        let more: Bool
        if format == .json, observe == nil, Item.self is any PlainJSONItem.Type {
            more = try forEachPage(requestPage, reading: { try $0.reprintedPage() }) { writer.write($0) }
        } else {
            more = try forEachPage(requestPage) { page in
                // Decoded at most once, for the writer and the observer.
                let items = format == .json && observe == nil ? [] : try page.items()
                if format == .json { writer.writeExpanding(page) } else { writer.write(items) }
                observe?(items)
            }
        }
        writer.finish(empty: empty)
        Output.moreHint(more, noun)
    }
}
