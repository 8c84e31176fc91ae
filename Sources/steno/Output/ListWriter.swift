import Foundation
import StenoAPI

/// Writes a list command's items as their pages arrive, so that `--all` over tens of thousands
/// of rows shows its first rows at once and a script reading the output starts working while
/// later pages are fetched.
///
/// JSON is one array, written page by page (the same text `Output.print` writes for the
/// whole list); CSV writes its header once and each page's rows. Tables for people are held
/// until the list is complete: their column widths depend on every row.
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

    /// Writes (or, for tables, holds) one page's items: JSON as the daemon sent them (see
    /// `ReceivedPage`), CSV and tables from the typed items.
    mutating func write(_ page: ReceivedPage<Item>) throws {
        switch format {
        case .json:
            guard !page.json.isEmpty else { return }
            // The page printed as an array is its elements at the first level: "[" + "\n  …,\n  …" + "\n]".
            var bytes = TerminalText.escapingJSON(JSONTable.expandingEmbeddedJSON(.array(page.json)).prettyPrintedBytes())
            bytes[0] = UInt8(ascii: started ? "," : "[")
            Output.write(bytes: bytes.dropLast(2))
            started = true
        case .csv:
            guard !page.json.isEmpty else { return }
            Output.line(table(try page.items()).renderCSV(header: !started))
            started = true
        case .table, .wide:
            held += try page.items()
        }
    }

    /// Ends the list: closes the JSON array, or writes the held table.
    mutating func finish() {
        switch format {
        case .json: Output.line(started ? "\n]" : "[]")
        case .csv: if !started { Output.line(table([]).renderCSV()) }
        case .table, .wide: Output.sayTable(table(held), format: format)
        }
    }
}

extension ListOptions {
    /// Fetches pages until the limit (or the end, with `--all`) and writes them in `format` as
    /// they arrive (see `ListWriter`), then says on standard error when items were left out.
    /// `observe` sees each page's items (for notes written after the list).
    func write<Item: Codable & Sendable>(
        _ noun: String, format: OutputFormat, table: @escaping ([Item]) -> TableWriter, observe: (([Item]) -> Void)? = nil,
        requestPage: PageRequest<Item>
    ) throws {
        var writer = ListWriter(format: format, table: table)
        let more = try forEachPage(requestPage) { page in
            try writer.write(page)
            if let observe { observe(try page.items()) }
        }
        writer.finish()
        Output.moreHint(more, noun)
    }
}
