/// What a path under the inbox is, by its name alone: a recording to ingest, a sidecar or
/// transcript belonging to one, or something to leave alone.
public enum InboxPath {
    /// How a file under the inbox is treated.
    public enum Kind: Sendable, Hashable {
        /// A candidate recording (its content decides whether it is audio).
        case recording
        /// `NAME.json` next to `NAME.ext`.
        case sidecar
        /// `NAME.txt`, `.vtt` or `.srt` next to `NAME.ext`.
        case transcript
        /// Temporary, hidden or system litter: never ingested.
        case ignored
    }

    /// Extensions of files that belong to a recording rather than being one.
    public static let sidecarExtensions: Set<String> = ["json"]
    public static let transcriptExtensions: Set<String> = ["txt", "vtt", "srt"]
    /// Names of partial downloads and editors' temporary files.
    static let temporarySuffixes = [".part", ".tmp", ".crdownload", ".download", ".partial", ".swp", "~"]
    /// Name prefixes of editors' and Office's temporary copies (`~recording.m4a`, `~$notes.docx`).
    static let temporaryPrefixes = ["~"]
    /// System litter (macOS, Windows, Synology NAS).
    static let litterNames: Set<String> = [".DS_Store", "Thumbs.db", "desktop.ini", "@eaDir", "__MACOSX", "#recycle", "lost+found"]

    /// Classifies a path relative to the inbox (`alice/standup.m4a`).
    public static func kind(of relativePath: String) -> Kind {
        let components = relativePath.split(separator: "/", omittingEmptySubsequences: true)
        guard let name = components.last else { return .ignored }
        for component in components where isIgnoredComponent(String(component)) { return .ignored }
        let lowered = name.lowercased()
        if temporarySuffixes.contains(where: { lowered.hasSuffix($0) }) { return .ignored }
        if temporaryPrefixes.contains(where: { name.hasPrefix($0) }) { return .ignored }
        let ext = fileExtension(String(name))
        if sidecarExtensions.contains(ext) { return .sidecar }
        if transcriptExtensions.contains(ext) { return .transcript }
        return .recording
    }

    /// Hidden files and folders (`.x`, including AppleDouble `._x`) and known litter.
    public static func isIgnoredComponent(_ component: String) -> Bool {
        component.hasPrefix(".") || litterNames.contains(component)
    }

    /// The lowercased extension without its dot, or "".
    public static func fileExtension(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...]).lowercased()
    }

    /// The path without its extension: `alice/standup.m4a` → `alice/standup`.
    public static func stem(_ relativePath: String) -> String {
        let name = relativePath.split(separator: "/").last.map(String.init) ?? relativePath
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return relativePath }
        return String(relativePath.dropLast(name.distance(from: dot, to: name.endIndex)))
    }

    /// The companions a recording at `relativePath` may have: its sidecar and transcripts, by
    /// name (whether they exist is for the caller to find out).
    public static func companions(of relativePath: String) -> [String] {
        let stem = stem(relativePath)
        return (sidecarExtensions.sorted() + ["txt", "vtt", "srt"]).map { stem + "." + $0 }
    }

    /// The user name an inbox path names: its first folder (`alice/…` → `alice`), if it has one.
    public static func ownerFolder(of relativePath: String) -> String? {
        let components = relativePath.split(separator: "/", omittingEmptySubsequences: true)
        return components.count >= 2 ? String(components[0]) : nil
    }
}
