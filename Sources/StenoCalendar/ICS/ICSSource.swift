import Foundation

/// Where an ICS account reads from: a file, a folder of `.ics` files, or an http(s) URL
/// (`webcal://` is read as `https://`).
public enum ICSSource: Sendable, Hashable, CustomStringConvertible {
    case file(String)
    case folder(String)
    case url(URL)

    /// The source named by an account's `source` setting.
    ///
    /// - Throws: ``CalendarSyncError/badSource(_:)`` when it is neither an existing file or
    ///   folder nor an http(s)/webcal URL.
    public init(_ text: String) throws(CalendarSyncError) {
        let lowered = text.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") || lowered.hasPrefix("webcal://") {
            let normalized = lowered.hasPrefix("webcal://") ? "https://" + text.dropFirst("webcal://".count) : text
            guard let url = URL(string: normalized), url.host != nil else {
                throw .badSource("\(text) is not a valid URL")
            }
            self = .url(url)
            return
        }
        let path = text.hasPrefix("file://") ? (URL(string: text)?.path ?? text) : text
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .badSource("\(path) does not exist (an ICS account reads a .ics file, a folder of them, or an http(s) URL)")
        }
        self = isDirectory.boolValue ? .folder(path) : .file(path)
    }

    /// The path or URL.
    public var description: String {
        switch self {
        case .file(let path), .folder(let path): return path
        case .url(let url): return url.absoluteString
        }
    }
}
