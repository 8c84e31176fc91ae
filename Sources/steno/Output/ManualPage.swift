import Foundation
import StenoAPI

/// Renders steno's manual page (man(7) roff) from the description of its commands that the
/// argument parser dumps (`--experimental-dump-help`): every command with its abstract,
/// discussion, examples and options, so the page never drifts from `--help`.
struct ManualPage {
    /// The options every command takes, described once under OPTIONS instead of per command.
    static let globalOptions: Set<String> = ["socket", "json", "output", "tz", "version", "help"]

    /// The description of the root command (the dump's `command`).
    let root: JSONValue
    let version: String

    /// The whole page. No date: the same commands give the same page, byte for byte.
    func render() -> String {
        var page = [
            ".TH STENO 1 \"\" \"Steno \(Self.escaped(version))\" \"User Commands\"",
            ".SH NAME",
            "steno \\- " + Self.escaped(root["abstract"]?.stringValue ?? ""),
            ".SH SYNOPSIS",
            ".B steno",
            "[\\fB\\-\\-socket\\fR \\fIpath\\fR] [\\fB\\-\\-json\\fR | \\fB\\-o\\fR \\fIformat\\fR] \\fIcommand\\fR [\\fIarguments\\fR]",
            ".SH DESCRIPTION",
        ]
        page += Self.paragraphs(root["discussion"]?.stringValue ?? "")
        page.append(".SH OPTIONS")
        page += Self.options(of: root, including: Self.globalOptions)
        page += Self.options(of: Self.firstLeaf(root), including: ["socket", "json", "output", "tz"])
        page.append(".SH COMMANDS")
        for command in root["subcommands"]?.arrayValue ?? [] {
            page += Self.section(command, path: ["steno"])
        }
        page += [
            ".SH ENVIRONMENT",
            ".TP", ".B STENO_SOCKET", "The daemon's socket when \\fB\\-\\-socket\\fR is not given.",
            ".TP", ".B STENO_PLAYER", "The player \\fBsteno recordings open\\fR runs with the file's path.",
            ".TP", ".B COLUMNS", "The terminal width tables fit (else the terminal's own size).",
            ".SH FILES",
            ".TP", ".I ~/.config/steno/client.toml, /etc/steno/client.toml",
            "\\fBsocket = \"PATH\"\\fR: the daemon's socket when neither \\fB\\-\\-socket\\fR nor \\fBSTENO_SOCKET\\fR says.",
            ".SH EXIT STATUS",
            "0 success, 1 failed (for \\fB\\-\\-wait\\fR: anything waited for failed), 3 daemon not running,",
            "4 not found, 5 not permitted, 64 usage error.",
            ".SH SEE ALSO",
            "\\fBstenod \\-\\-help\\fR for the daemon; deploy/OPERATIONS.md in Steno's sources for running it.",
        ]
        return page.joined(separator: "\n")
    }

    /// One command's section, then its subcommands'. Hidden commands are left out.
    static func section(_ command: JSONValue, path: [String]) -> [String] {
        guard command["shouldDisplay"]?.boolValue != false, let name = command["commandName"]?.stringValue,
              name != "help" else { return [] }
        let full = path + [name]
        var lines = [".SS \"" + escaped(full.joined(separator: " ")) + "\""]
        lines.append(escaped(command["abstract"]?.stringValue ?? ""))
        lines += paragraphs(command["discussion"]?.stringValue ?? "")
        let positional = (command["arguments"]?.arrayValue ?? []).filter { $0["kind"]?.stringValue == "positional" }
        for argument in positional where argument["shouldDisplay"]?.boolValue != false {
            lines += [".TP", "\\fI" + escaped(argument["valueName"]?.stringValue ?? "") + "\\fR", escaped(argument["abstract"]?.stringValue ?? "")]
        }
        lines += options(of: command, excluding: globalOptions)
        for subcommand in command["subcommands"]?.arrayValue ?? [] {
            lines += section(subcommand, path: full)
        }
        return lines
    }

    /// Option and flag entries (`.TP`), those named in `including` or not in `excluding`.
    static func options(of command: JSONValue, including: Set<String>? = nil, excluding: Set<String> = []) -> [String] {
        var lines: [String] = []
        for argument in command["arguments"]?.arrayValue ?? [] {
            guard let kind = argument["kind"]?.stringValue, kind != "positional",
                  argument["shouldDisplay"]?.boolValue != false else { continue }
            let names = argument["names"]?.arrayValue ?? []
            let long = names.first { $0["kind"]?.stringValue != "short" }?["name"]?.stringValue ?? ""
            if let including, !including.contains(long) { continue }
            if excluding.contains(long) { continue }
            let spelled = names.map { name -> String in
                let dashes = name["kind"]?.stringValue == "short" ? "\\-" : "\\-\\-"
                return "\\fB" + dashes + escaped(name["name"]?.stringValue ?? "") + "\\fR"
            }.joined(separator: ", ")
            let value = kind == "option" ? " \\fI" + escaped(argument["valueName"]?.stringValue ?? "value") + "\\fR" : ""
            var help = escaped(argument["abstract"]?.stringValue ?? "")
            if let values = argument["allValues"]?.arrayValue, !values.isEmpty {
                help += " (" + values.compactMap(\.stringValue).map(escaped).joined(separator: ", ") + ")"
            }
            lines += [".TP", spelled + value, help]
        }
        return lines
    }

    /// A discussion as roff: prose as paragraphs, indented lines (examples) kept as they are.
    static func paragraphs(_ text: String) -> [String] {
        guard !text.isEmpty else { return [] }
        var lines: [String] = [".PP"]
        var inExample = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let indented = line.hasPrefix(" ")
            if indented && !inExample { lines += [".RS 2", ".nf"]; inExample = true }
            if !indented && inExample { lines += [".fi", ".RE"]; inExample = false }
            if line.isEmpty { lines.append(inExample ? "" : ".PP"); continue }
            // Examples are indented by two in --help; the roff block indents them itself.
            lines.append(escaped(indented ? String(line.dropFirst(min(2, line.prefix { $0 == " " }.count))) : line))
        }
        if inExample { lines += [".fi", ".RE"] }
        return lines
    }

    /// The first command without subcommands: it carries the global option group.
    static func firstLeaf(_ command: JSONValue) -> JSONValue {
        guard let first = command["subcommands"]?.arrayValue?.first else { return command }
        return firstLeaf(first)
    }

    /// Text safe for roff: backslashes, hyphens and non-ASCII characters escaped, no line
    /// starting a request.
    static func escaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\e"
            case "-": out += "\\-"
            // Plain troff reads bytes; a named glyph renders the same under any locale.
            case _ where !scalar.isASCII: out += "\\[u" + String(format: "%04X", scalar.value) + "]"
            default: out.unicodeScalars.append(scalar)
            }
        }
        if out.hasPrefix(".") || out.hasPrefix("'") { out = "\\&" + out }
        return out
    }
}
