/// The part of a file a `Range` header asks for (one range of bytes).
///
/// A header that is not one well-formed `bytes=` range (several ranges, another unit, bad
/// numbers) is ignored and the whole file is sent, as HTTP lets a server do; a well-formed
/// range that starts at or past the end is unsatisfiable (416).
enum ByteRange: Equatable, Sendable {
    /// No usable range: the whole file (200).
    case whole
    /// Bytes `lowerBound...upperBound` (206).
    case part(ClosedRange<Int64>)
    /// Nothing of a file of this size matches (416).
    case unsatisfiable

    /// What `header` asks of a file of `size` bytes.
    static func parse(_ header: String?, size: Int64) -> ByteRange {
        guard let header else { return .whole }
        let trimmed = header.trimmingWhitespace
        guard trimmed.lowercased().hasPrefix("bytes=") else { return .whole }
        let spec = trimmed.dropFirst("bytes=".count).trimmingWhitespace
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .whole }
        let first = spec[..<dash].trimmingWhitespace, last = spec[spec.index(after: dash)...].trimmingWhitespace
        guard first.allSatisfy(\.isASCIIDigit), last.allSatisfy(\.isASCIIDigit), !(first.isEmpty && last.isEmpty) else { return .whole }
        // Digits too many for Int64 are a number past any end.
        func number(_ digits: Substring) -> Int64 { Int64(digits) ?? Int64.max }
        if first.isEmpty {
            let suffix = number(last)
            guard suffix > 0, size > 0 else { return .unsatisfiable }
            return .part(max(0, size - suffix)...(size - 1))
        }
        let start = number(first)
        guard start < size else { return .unsatisfiable }
        let end = last.isEmpty ? size - 1 : min(number(last), size - 1)
        guard end >= start else { return .whole }
        return .part(start...end)
    }
}

extension StringProtocol {
    fileprivate var trimmingWhitespace: Substring {
        let text = Substring(self)
        guard let first = text.firstIndex(where: { $0 != " " && $0 != "\t" }), let last = text.lastIndex(where: { $0 != " " && $0 != "\t" }) else {
            return text[text.endIndex...]
        }
        return text[first...last]
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
