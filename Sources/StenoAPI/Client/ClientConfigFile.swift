import Foundation

/// The CLI's config file, `client.toml`: one setting, `socket = "PATH"`.
///
/// Read as a strict subset of TOML — blank lines, `#` comments and `key = "string"` lines —
/// and anything else is an error naming the line, so a typo never falls back to a default
/// socket in silence.
public struct ClientConfigFile: Sendable, Equatable {
    /// The settings the file may hold.
    public static let keys = ["socket"]

    /// The daemon's socket, an absolute path.
    public var socket: String?

    /// A config with the given settings.
    public init(socket: String? = nil) {
        self.socket = socket
    }

    /// Reads the file at `path`; nil when there is no such file.
    ///
    /// - Throws: `ClientConfigError` when the file exists but cannot be read or is malformed.
    public static func load(path: String) throws(ClientConfigError) -> ClientConfigFile? {
        guard let data = FileManager.default.contents(atPath: path) else {
            guard FileManager.default.fileExists(atPath: path) else { return nil }
            throw ClientConfigError(path: path, line: nil, reason: "cannot be read (is it a file, readable by you?)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ClientConfigError(path: path, line: nil, reason: "is not UTF-8 text")
        }
        return try parse(text, path: path)
    }

    /// Parses the text of a config file; `path` only names it in errors.
    public static func parse(_ text: String, path: String) throws(ClientConfigError) -> ClientConfigFile {
        var config = ClientConfigFile()
        var seen: Set<String> = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            func failure(_ reason: String) -> ClientConfigError { ClientConfigError(path: path, line: index + 1, reason: reason) }
            let line = rawLine.hasSuffix("\r") ? rawLine.dropLast() : rawLine
            guard let (key, value) = try parseLine(Array(line.unicodeScalars), failure: failure) else { continue }
            guard keys.contains(key) else {
                throw failure("unknown setting \"\(key)\" (the only setting is \(keys.joined(separator: ", ")))")
            }
            guard seen.insert(key).inserted else { throw failure("\"\(key)\" is set twice") }
            guard value.hasPrefix("/") else { throw failure("socket must be an absolute path, not \"\(value)\"") }
            config.socket = value
        }
        return config
    }

    /// One line: nil for a blank or comment line, else its key and string value.
    private static func parseLine(
        _ scalars: [Unicode.Scalar], failure: (String) -> ClientConfigError
    ) throws(ClientConfigError) -> (String, String)? {
        var position = 0
        func skipBlanks() { while position < scalars.count, scalars[position] == " " || scalars[position] == "\t" { position += 1 } }
        skipBlanks()
        guard position < scalars.count, scalars[position] != "#" else { return nil }

        var key = ""
        while position < scalars.count, isKeyCharacter(scalars[position]) {
            key.unicodeScalars.append(scalars[position])
            position += 1
        }
        guard !key.isEmpty else { throw failure("expected a setting like socket = \"/run/steno/stenod.sock\"") }
        skipBlanks()
        guard position < scalars.count, scalars[position] == "=" else { throw failure("expected = after \"\(key)\"") }
        position += 1
        skipBlanks()
        guard position < scalars.count, scalars[position] == "\"" else {
            throw failure("the value of \"\(key)\" must be a string in double quotes")
        }
        position += 1

        var value = ""
        var closed = false
        while position < scalars.count {
            let scalar = scalars[position]
            position += 1
            if scalar == "\"" {
                closed = true
                break
            }
            if scalar == "\\" {
                guard position < scalars.count, scalars[position] == "\"" || scalars[position] == "\\" else {
                    throw failure("only the escapes \\\" and \\\\ are supported")
                }
                value.unicodeScalars.append(scalars[position])
                position += 1
                continue
            }
            guard scalar.value >= 0x20, scalar.value != 0x7F else { throw failure("a control character in the value of \"\(key)\"") }
            value.unicodeScalars.append(scalar)
        }
        guard closed else { throw failure("the value of \"\(key)\" has no closing quote") }
        skipBlanks()
        guard position == scalars.count || scalars[position] == "#" else {
            throw failure("unexpected text after the value of \"\(key)\"")
        }
        return (key, value)
    }

    /// TOML's bare keys: ASCII letters, digits, `_` and `-`.
    private static func isKeyCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "_", "-": return true
        default: return false
        }
    }
}

/// Why a client config file could not be used: the file, the line and what is wrong there.
public struct ClientConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file.
    public var path: String
    /// The 1-based line, when the problem is on one.
    public var line: Int?
    /// What is wrong, in words.
    public var reason: String

    /// An error about `path` (at `line`).
    public init(path: String, line: Int?, reason: String) {
        self.path = path
        self.line = line
        self.reason = reason
    }

    public var description: String {
        "\(path)\(line.map { " line \($0)" } ?? ""): \(reason)"
    }
}
