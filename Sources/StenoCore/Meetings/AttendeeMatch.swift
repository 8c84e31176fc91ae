import Foundation

/// What `steno meetings --with X` looks for among a meeting's organizer and attendees: an
/// email (`bob@corp.example`, exactly), a domain (`@corp.example` or `corp.example`: every
/// address there), or part of a display name (`bob`, `Bob Sm`: words from their start,
/// case-insensitive).
public enum AttendeeMatch: Sendable, Hashable {
    case email(String)
    case domain(String)
    case name(String)

    /// At most this many at once: each is a set read of its own.
    public static let maximumCount = 20

    /// Reads what a person typed; nil when it has no letter or digit to look for.
    public init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.count <= 256, trimmed.contains(where: { $0.isLetter || $0.isNumber }) else { return nil }
        let lowered = trimmed.lowercased()
        if lowered.hasPrefix("@") {
            self = .domain(String(lowered.dropFirst()))
        } else if lowered.contains("@") {
            self = .email(lowered)
        } else if lowered.contains("."), lowered.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" }) {
            self = .domain(lowered)
        } else {
            self = .name(trimmed)
        }
    }

    /// A `LIKE … ESCAPE '\'` pattern over lowercased addresses (a domain) or names (a name);
    /// nil for an email, which is compared whole.
    public var likePattern: String? {
        func escaped(_ text: String) -> String {
            text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
        }
        switch self {
        case .email: return nil
        case .domain(let domain): return "%@" + escaped(domain)
        case .name(let name): return "%" + escaped(Self.folded(name)) + "%"
        }
    }

    /// A name as names are compared: case and diacritics folded, so `zoe` finds "Zoë".
    public static func folded(_ name: String) -> String {
        name.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }

    /// Whether the pattern applies to names (else to addresses).
    public var matchesNames: Bool {
        if case .name = self { return true }
        return false
    }

    /// The words the full-text index must hold for a meeting to be a candidate: a name's
    /// words as prefixes, a domain's as one phrase; nil for an email.
    public var searchWords: (words: [String], isPhrase: Bool)? {
        switch self {
        case .email: return nil
        case .domain(let domain): return (Self.words(domain), true)
        case .name(let name): return (Self.words(name), false)
        }
    }

    /// Runs of letters and digits, as the full-text index splits text.
    static func words(_ text: String) -> [String] {
        Array(text.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init).prefix(SearchTerms.maximumWords))
    }
}
