import StenoJSON

/// A page's `nextCursor` read from the end of its compact JSON, without parsing its items: so
/// that `--all` can ask for the next page while this one is still being parsed and printed.
///
/// The daemon writes an object's members in sorted order, `items` before `nextCursor`, so a
/// page ends with `]}` (no cursor) or `,"nextCursor":"…"}`; in a reply the page is the last
/// member of the envelope (`{"id":N,"jsonrpc":"2.0","result":{…}}`). The last
/// `,"nextCursor":"` is that member: inside a string every `"` is escaped, so a quote after a
/// comma is always structural. Anything else (another writer's order, an error) is `.unknown`
/// and read the slow way.
public enum PageTrailingCursor: Equatable, Sendable {
    /// The page continues after this cursor.
    case cursor(String)
    /// The page is the last one.
    case none
    /// The bytes are not laid out as this reader expects.
    case unknown

    /// The cursor at the end of a serialized page object.
    public init(page bytes: ArraySlice<UInt8>) {
        guard bytes.count >= 2, bytes.last == UInt8(ascii: "}") else {
            self = .unknown
            return
        }
        let end = bytes.endIndex - 1
        if bytes[end - 1] == UInt8(ascii: "]") {
            self = .none
            return
        }
        let marker = Self.marker
        var start = end - marker.count
        while start >= bytes.startIndex {
            if bytes[start] == UInt8(ascii: ","), bytes[start..<(start + marker.count)].elementsEqual(marker) {
                // The member's value: after the colon, up to the page's closing brace.
                if let cursor = (try? JSONValue.parse(bytes[(start + marker.count)..<end]))?.stringValue {
                    self = .cursor(cursor)
                } else {
                    self = .unknown
                }
                return
            }
            start -= 1
        }
        self = .unknown
    }

    /// The cursor at the end of a reply line holding a page as the result of request `id`.
    public init(reply line: [UInt8], id: Int64) {
        let prefix = Array(#"{"id":\#(id),"jsonrpc":"2.0","result":"#.utf8)
        guard line.count > prefix.count + 1, line.last == UInt8(ascii: "}"), line.starts(with: prefix) else {
            self = .unknown
            return
        }
        self.init(page: line[prefix.count..<(line.count - 1)])
    }

    private static let marker = Array(#","nextCursor":"#.utf8)
}
