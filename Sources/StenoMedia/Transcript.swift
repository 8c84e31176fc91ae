import Foundation

/// Reads transcripts that travel with recordings (`.txt`, WebVTT `.vtt`, SubRip `.srt`)
/// into plain text: no headers, cue numbers, timings, styling tags or repeated lines.
public enum Transcript {
    /// The transcript file formats understood.
    public enum Format: String, Sendable, Hashable, CaseIterable {
        /// Plain text, used as is.
        case txt
        /// WebVTT captions.
        case vtt
        /// SubRip subtitles.
        case srt

        /// The format for a file extension ("vtt", ".SRT", …); nil when unknown.
        public init?(pathExtension: String) {
            var e = pathExtension.lowercased()
            if e.hasPrefix(".") { e.removeFirst() }
            self.init(rawValue: e)
        }
    }

    /// Largest transcript read, so a mislabeled huge file cannot exhaust memory.
    public static let maxBytes = 16 << 20

    /// Reads the transcript at `path`, choosing the format from its extension.
    public static func read(path: String) throws(MediaError) -> String {
        let ext = (path as NSString).pathExtension
        guard let format = Format(pathExtension: ext) else {
            throw MediaError(.unsupported, "transcript \(path): unknown extension '.\(ext)' (expected .txt, .vtt or .srt)")
        }
        let source = try FileByteSource(path: path)
        defer { source.close() }
        guard source.size <= UInt64(maxBytes) else {
            throw MediaError(.invalid, "transcript \(path) is \(source.size) bytes, more than the \(maxBytes)-byte limit")
        }
        let bytes = try source.read(at: 0, count: Int(source.size))
        return plainText(String(decoding: bytes, as: UTF8.self), format: format)
    }

    /// Converts transcript text in `format` to plain text, one caption line per line.
    public static func plainText(_ text: String, format: Format) -> String {
        var t = text
        if t.hasPrefix("\u{FEFF}") { t.removeFirst() }
        let lines = t.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        switch format {
        case .txt: return lines.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
        case .vtt: return join(vttLines(lines))
        case .srt: return join(srtLines(lines))
        }
    }

    private static func vttLines(_ lines: [String]) -> [String] {
        var out: [String] = []
        var blocks: [[String]] = [[]]
        for l in lines {
            if l.trimmingCharacters(in: .whitespaces).isEmpty { blocks.append([]) } else { blocks[blocks.count - 1].append(l) }
        }
        for block in blocks where !block.isEmpty {
            let first = block[0]
            if first.hasPrefix("WEBVTT") || first.hasPrefix("NOTE") || first.hasPrefix("STYLE") || first.hasPrefix("REGION") { continue }
            guard let timing = block.firstIndex(where: { $0.contains("-->") }) else { continue }
            out.append(contentsOf: block[(timing + 1)...])
        }
        return out
    }

    private static func srtLines(_ lines: [String]) -> [String] {
        var out: [String] = []
        var i = 0
        while i < lines.count {
            let l = lines[i].trimmingCharacters(in: .whitespaces)
            let nextIsTiming = i + 1 < lines.count && lines[i + 1].contains("-->")
            if l.isEmpty || l.contains("-->") || (nextIsTiming && l.allSatisfy(\.isNumber)) {
                i += 1
                continue
            }
            out.append(lines[i])
            i += 1
        }
        return out
    }

    /// Strips markup, decodes the common entities, drops empty and repeated lines.
    private static func join(_ lines: [String]) -> String {
        var out: [String] = []
        for raw in lines {
            var s = ""
            var depth = 0
            var braces = 0
            for c in raw {
                switch c {
                case "<": depth += 1
                case ">": if depth > 0 { depth -= 1 } else { s.append(c) }
                case "{": braces += 1
                case "}": if braces > 0 { braces -= 1 } else { s.append(c) }
                default: if depth == 0 && braces == 0 { s.append(c) }
                }
            }
            s = s.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
                .replacingOccurrences(of: "&nbsp;", with: " ").replacingOccurrences(of: "&amp;", with: "&")
                .trimmingCharacters(in: .whitespaces)
            if s.isEmpty || out.last == s { continue }
            out.append(s)
        }
        return out.joined(separator: "\n")
    }
}
