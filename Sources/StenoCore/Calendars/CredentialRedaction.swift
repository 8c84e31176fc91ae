import Foundation

/// Removes credentials from URLs and from text that quotes them (error messages, log lines,
/// account names): the one place that decides what of a URL may be shown.
///
/// Kept: scheme, host, port and the path's ordinary segments. Removed: the user name and
/// password (`user:pw@`), every query value (`?token=…`) and the fragment, and path segments
/// that look like a secret (private calendar links carry their token in the path).
public enum CredentialRedaction {
    /// What replaces a removed secret.
    public static let mask = "REDACTED"

    /// A URL's text without its credentials.
    public static func redactedURL(_ text: String) -> String {
        guard let schemeEnd = text.range(of: "://") else { return text }
        let scheme = text[..<schemeEnd.lowerBound]
        var rest = text[schemeEnd.upperBound...]
        if let fragment = rest.firstIndex(of: "#") { rest = rest[..<fragment] }
        var query: Substring?
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        let pathStart = rest.firstIndex(of: "/") ?? rest.endIndex
        var authority = rest[..<pathStart]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        let path = rest[pathStart...].split(separator: "/", omittingEmptySubsequences: false)
            .map { looksSecret($0) ? mask : String($0) }.joined(separator: "/")
        var result = "\(scheme)://\(authority)\(path)"
        if let query {
            let fields = query.split(separator: "&", omittingEmptySubsequences: false).map { field -> String in
                guard let equals = field.firstIndex(of: "=") else { return field.isEmpty ? "" : mask }
                return "\(field[..<equals])=\(mask)"
            }
            result += "?" + fields.joined(separator: "&")
        }
        return result
    }

    /// Text with every URL in it redacted (``redactedURL(_:)``): a URL is a scheme, `://`,
    /// and everything up to white space or a quote.
    public static func redacted(_ text: String) -> String {
        guard text.contains("://") else { return text }
        let characters = Array(text)
        var result = ""
        var index = 0
        var copied = 0
        while index + 2 < characters.count {
            guard characters[index] == ":" && characters[index + 1] == "/" && characters[index + 2] == "/" else {
                index += 1
                continue
            }
            var start = index
            while start > copied, isSchemeCharacter(characters[start - 1]) { start -= 1 }
            var end = index + 3
            while end < characters.count, !isURLEnd(characters[end]) { end += 1 }
            guard start < index else {
                index += 3
                continue
            }
            result += String(characters[copied..<start]) + redactedURL(String(characters[start..<end]))
            copied = end
            index = end
        }
        return result + String(characters[copied...])
    }

    static func isSchemeCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || character == "+" || character == "-" || character == ".")
    }

    static func isURLEnd(_ character: Character) -> Bool {
        character.isWhitespace || "\"'<>`".contains(character)
    }

    /// Whether the URL's text carries a user name or password.
    public static func hasUserInfo(_ text: String) -> Bool {
        guard let schemeEnd = text.range(of: "://") else { return false }
        let rest = text[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        return rest[..<authorityEnd].contains("@")
    }

    /// A path segment long and random enough to be a token rather than a name: 20 characters
    /// or more mixing letters and digits, or a `private-…` link segment.
    static func looksSecret(_ segment: Substring) -> Bool {
        if segment.lowercased().hasPrefix("private-") || segment.lowercased().hasPrefix("private_") { return true }
        guard segment.count >= 20 else { return false }
        return segment.contains(where: \.isNumber) && segment.contains(where: \.isLetter)
    }
}
