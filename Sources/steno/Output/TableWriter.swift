import Foundation
import StenoAPI
import StenoCore

/// Renders rows for people (aligned columns), scripts (CSV) or programs (JSON).
struct TableWriter {
    var columns: [String]
    var rows: [[String]] = []

    init(_ columns: [String]) { self.columns = columns }

    /// Adds a row; provider and file text in it is made safe for a terminal here, once for
    /// every table and CSV.
    mutating func add(_ row: [String]) { rows.append(row.map(TerminalText.clean)) }

    /// Aligned columns with a header; the last column is not padded. With `maxWidth` (a
    /// terminal's), free-text columns are cut to fit (see `TableFitting`).
    func renderTable(maxWidth: Int? = nil) -> String {
        var natural = columns.map(TerminalText.displayWidth)
        for row in rows {
            for (index, cell) in row.enumerated() where index < natural.count {
                natural[index] = max(natural[index], TerminalText.displayWidth(cell))
            }
        }
        let layout = TableFitting.layout(columns: columns, natural: natural, maxWidth: maxWidth)
        func line(_ cells: [String]) -> String {
            layout.enumerated().map { position, column in
                let cell = TableFitting.truncate(column.index < cells.count ? cells[column.index] : "", to: column.width)
                return position == layout.count - 1 ? cell : TableFitting.pad(cell, to: column.width)
            }.joined(separator: String(repeating: " ", count: TableFitting.gap))
        }
        return ([line(columns)] + rows.map(line)).joined(separator: "\n")
    }

    /// RFC 4180 CSV, with a header line unless it continues rows written before.
    func renderCSV(header: Bool = true) -> String {
        func escape(_ cell: String) -> String {
            // Bytes, not Characters: a listing has hundreds of thousands of cells (a cell has no
            // "\r" left to pair with "\n": `add` cleaned it).
            cell.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\n") })
                ? "\"" + cell.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : cell
        }
        return ((header ? [columns] : []) + rows).map { $0.map(escape).joined(separator: ",") }.joined(separator: "\n")
    }
}

/// Writes a command's result in the chosen format.
enum Output {
    ///
    /// - Parameter empty: what a person is told instead of a table without rows (what to do to
    ///   fill it); scripts get the empty array or the CSV header all the same.
    static func print(_ json: JSONValue, table: TableWriter, format: OutputFormat, empty: (() -> String)? = nil) {
        let json = JSONTable.expandingEmbeddedJSON(json)
        switch format {
        case .json: line(TerminalText.escapingJSON(json.prettyPrinted()))
        case .csv: line((table.columns.isEmpty ? JSONTable.table(from: json) : table).renderCSV())
        case .table, .wide:
            if table.rows.isEmpty, let empty { return say(empty()) }
            sayTable(table, format: format)
        }
    }

    /// Writes lines for people to standard output, with provider text made safe (see `TerminalText`).
    static func say(_ text: String) {
        line(TerminalText.cleanLines(text))
    }

    /// Writes text and a newline to standard output at once: `print` would hold it in a buffer
    /// when stdout is a pipe or file, so a script reading steno's progress would see nothing
    /// until the command ends.
    static func line(_ text: String) {
        write(text + "\n")
    }

    /// Writes text to standard output at once, without a newline (see `line`).
    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Writes UTF-8 bytes to standard output at once (see `line`).
    static func write<Bytes: Sequence<UInt8>>(bytes: Bytes) {
        FileHandle.standardOutput.write(Data(bytes))
    }

    /// Writes a table for people: fitted to the terminal, or whole with `-o wide`.
    static func sayTable(_ table: TableWriter, format: OutputFormat = .table) {
        say(table.renderTable(maxWidth: format == .wide ? nil : TableFitting.terminalWidth()))
    }

    static func json<T: Encodable>(_ value: T) -> JSONValue {
        (try? JSONValueEncoder().encode(value)) ?? .null
    }

    /// The outcome of a change: one sentence on a terminal, the value for scripts.
    static func done<T: Encodable>(_ value: T, _ sentence: String, format: OutputFormat) {
        if format.isHuman {
            say(sentence)
        } else {
            print(json(value), table: TableWriter([]), format: format)
        }
    }

    /// After a list cut short by `--limit`, in every format: how to see the rest, on standard
    /// error so that a program reading the output gets only rows.
    static func moreHint(_ more: Bool, _ items: String) {
        guard more else { return }
        FileHandle.standardError.write(Data("steno: more \(items) than shown; use --all or a larger --limit\n".utf8))
    }

    /// A time to the minute with its zone's offset (`2026-11-20 09:30 +01:00`), in the zone of
    /// `--tz`: a time without a zone is ambiguous the moment two people compare notes.
    static func date(_ date: Date) -> String {
        let zone = timeZone
        let minute = WallClockText.minute(date, in: zone) ?? CachedDateFormatter.string(date, pattern: "yyyy-MM-dd HH:mm", in: zone)
        return minute + " " + TimeZoneName.offset(zone, at: date)
    }

    /// An end time: only `HH:mm` on the day and at the offset of its start `opening` (as
    /// written by `date(_:)`: the start names both), else in full. Taking the start's text
    /// writes each start once, not twice (date formatting is most of `-o csv`'s own time).
    static func date(_ date: Date, afterWritten opening: String?) -> String {
        let full = self.date(date)
        guard let opening else { return full }
        guard opening.prefix(10) == full.prefix(10), opening.suffix(6) == full.suffix(6) else { return full }
        return String(full.dropFirst(11).prefix(5))
    }

    /// The day of a time in the zone of `--tz` (`2026-11-20`).
    static func day(_ date: Date) -> String {
        WallClockText.day(date, in: timeZone) ?? CachedDateFormatter.string(date, pattern: "yyyy-MM-dd", in: timeZone)
    }

    /// A duration as `3d 4h`, `2h 5m`, `42s`.
    static func duration(seconds: Double) -> String {
        let total = Int(seconds)
        let days = total / 86_400, hours = total % 86_400 / 3600, minutes = total % 3600 / 60
        if days > 0 { return "\(days)d \(hours)h" }
        if hours > 0 { return "\(hours)h \(minutes)m" }
        if minutes > 0 { return "\(minutes)m \(total % 60)s" }
        return String(format: "%.1fs", seconds)
    }
}
