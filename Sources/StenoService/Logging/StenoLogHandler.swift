import Foundation
import Logging
import StenoJSON
import Synchronization

/// Writes log lines to standard error: readable text on a terminal, one JSON object per line
/// under systemd (so journald and log shippers keep the fields).
public struct StenoLogHandler: LogHandler {
    /// The label of the logger (the component).
    public let label: String
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    private let json: Bool

    /// Serialises writes from all threads so lines never interleave.
    private static let output = Mutex(())

    public init(label: String, level: Logger.Level, json: Bool) {
        self.label = label
        self.logLevel = level
        self.json = json
    }

    /// Installs the handler for every logger of the process.
    ///
    /// - Parameter format: `.auto` picks JSON when systemd started the process (`INVOCATION_ID`
    ///   or `JOURNAL_STREAM` set) and stderr is not a terminal.
    public static func bootstrap(level: Logger.Level, format: StenoConfiguration.LogFormat, environment: [String: String]) {
        let json: Bool
        switch format {
        case .json: json = true
        case .text: json = false
        case .auto:
            json = isatty(STDERR_FILENO) == 0 && (environment["INVOCATION_ID"] != nil || environment["JOURNAL_STREAM"] != nil)
        }
        LoggingSystem.bootstrap { label in StenoLogHandler(label: label, level: level, json: json) }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { _, new in new } }
        let line = json ? jsonLine(event, merged) : textLine(event, merged)
        Self.output.withLock { _ in
            FileHandle.standardError.write(Data(line.utf8))
        }
    }

    private func textLine(_ event: LogEvent, _ metadata: Logger.Metadata) -> String {
        Self.textLine(time: Date(), level: event.level, label: label, message: event.message, metadata: metadata)
    }

    /// One text line; the message and every key and value are escaped (``LogTextEscaping``), so
    /// what a user named cannot start a line or add a field.
    static func textLine(time: Date, level: Logger.Level, label: String, message: Logger.Message, metadata: Logger.Metadata) -> String {
        var line = "\(ISO8601DateFormatter().string(from: time)) \(level.rawValue.uppercased()) \(LogTextEscaping.message(label)): "
            + LogTextEscaping.message("\(message)")
        if !metadata.isEmpty {
            line += " " + metadata.sorted { $0.key < $1.key }
                .map { LogTextEscaping.key($0.key) + "=" + LogTextEscaping.value("\($0.value)") }
                .joined(separator: " ")
        }
        return line + "\n"
    }

    private func jsonLine(_ event: LogEvent, _ metadata: Logger.Metadata) -> String {
        Self.jsonLine(time: Date(), level: event.level, label: label, message: event.message, metadata: metadata)
    }

    /// One JSON object; JSON strings escape control characters themselves.
    static func jsonLine(time: Date, level: Logger.Level, label: String, message: Logger.Message, metadata: Logger.Metadata) -> String {
        var object: [String: JSONValue] = [
            "time": .string(ISO8601DateFormatter().string(from: time)),
            "level": .string(level.rawValue),
            "logger": .string(label),
            "message": .string("\(message)"),
        ]
        for (key, value) in metadata where object[key] == nil {
            object[key] = Self.json(value)
        }
        return JSONValue.object(object).serializedString + "\n"
    }

    private static func json(_ value: Logger.MetadataValue) -> JSONValue {
        switch value {
        case .string(let string): return .string(string)
        case .stringConvertible(let convertible): return .string(convertible.description)
        case .array(let array): return .array(array.map(json))
        case .dictionary(let dictionary): return .object(dictionary.mapValues(json))
        }
    }
}

extension Logger.Level {
    /// Parses a level name as the configuration spells it.
    init?(configurationName: String) {
        self.init(rawValue: configurationName.lowercased())
    }
}
