#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Fits a table into a terminal's width, as `kubectl get` does: free-text columns (titles,
/// names, paths, reasons) are cut with "…", widest first; ids, times and counts never are.
/// Only if that is not enough are the columns of least use at a glance left out; `-o wide`
/// shows everything.
enum TableFitting {
    /// Columns whose text may be cut; any other column is shown whole.
    static let freeTextColumns: Set<String> = [
        "TITLE", "ORGANIZER", "OWNER", "SOURCE", "PATH", "REASON", "DETAIL", "MATCH", "NAME", "EMAIL", "EMAILS",
        "DISPLAY NAME", "LAST-ERROR", "VALUE", "REMOTE ID", "MEETING", "LABEL",
    ]
    /// Columns left out, in this order, when cutting text is not enough.
    static let droppableColumns = ["NEXT SYNC", "CALENDARS", "END", "ATTENDEES", "UIDS", "TIME ZONE", "SCORE", "METHOD"]
    /// Narrowest a cut column becomes (with its header cut too).
    static let minimumWidth = 4
    /// Space between columns.
    static let gap = 2

    /// The columns to show (indices into the table) and the width of each, for `maxWidth`
    /// display columns; `natural` holds each column's widest cell.
    static func layout(columns: [String], natural: [Int], maxWidth: Int?) -> [(index: Int, width: Int)] {
        var shown = Array(columns.indices)
        var widths = natural
        func total() -> Int { shown.reduce(0) { $0 + widths[$1] } + gap * max(0, shown.count - 1) }
        guard let maxWidth else { return shown.map { ($0, widths[$0]) } }
        shrink(&widths, shown: shown, columns: columns, by: total() - maxWidth)
        for name in droppableColumns where total() > maxWidth {
            guard let index = columns.firstIndex(of: name), shown.count > 1 else { continue }
            shown.removeAll { $0 == index }
            widths = natural
            shrink(&widths, shown: shown, columns: columns, by: total() - maxWidth)
        }
        return shown.map { ($0, widths[$0]) }
    }

    /// Takes `excess` columns off the widest free-text columns, one at a time.
    private static func shrink(_ widths: inout [Int], shown: [Int], columns: [String], by excess: Int) {
        var excess = excess
        let cuttable = shown.filter { freeTextColumns.contains(columns[$0]) }
        while excess > 0 {
            guard let widest = cuttable.max(by: { widths[$0] < widths[$1] }), widths[widest] > minimumWidth else { return }
            widths[widest] -= 1
            excess -= 1
        }
    }

    /// `text` cut to `width` display columns, ending in "…" when cut.
    static func truncate(_ text: String, to width: Int) -> String {
        guard TerminalText.displayWidth(text) > width else { return text }
        var result = ""
        var used = 0
        for character in text {
            let characterWidth = TerminalText.displayWidth(of: character)
            if used + characterWidth > width - 1 { break }
            result.append(character)
            used += characterWidth
        }
        return result + "…"
    }

    /// `text` padded with spaces to `width` display columns.
    static func pad(_ text: String, to width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - TerminalText.displayWidth(text)))
    }

    /// The width of the terminal standard output is, or nil when it is not a terminal (pipes
    /// and files get whole lines). `COLUMNS` wins over the terminal's own size.
    static func terminalWidth(environment: [String: String] = ProcessInfo.processInfo.environment) -> Int? {
        guard isatty(STDOUT_FILENO) != 0 else { return nil }
        if let columns = environment["COLUMNS"].flatMap(Int.init), columns > 0 { return columns }
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return nil
    }
}
