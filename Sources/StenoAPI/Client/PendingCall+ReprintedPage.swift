/// A page of a list whose items were pretty-printed straight from the reply's bytes, never
/// built into values: for output that only passes the items on (`steno … -o json`).
public struct ReprintedPage: Sendable {
    /// The `items` array as `JSONValue.prettyPrintedBytes(indent:)` writes it.
    public let items: [UInt8]
    /// How many items the page holds.
    public let count: Int
    /// Where the next page starts; nil on the last.
    public let nextCursor: String?
}

extension PendingCall {
    /// Waits for the answer, a page (an object with an `items` array and an optional string
    /// `nextCursor`), and pretty-prints its items from the bytes the daemon sent, checking
    /// them as `JSONValue.parse` does; the reply is read once.
    ///
    /// - Throws: the daemon's error, `.protocolError` for malformed JSON, or
    ///   `.unexpectedResult` when the result is not a page.
    public func reprintedPage(indent: Int = 2) throws(StenoClientError) -> ReprintedPage {
        let (result, items) = try reply { line throws(JSONParseError) in
            let parsed = try JSONValue.parse(line, reprintingMemberAt: ["result", "items"], indent: indent)
            return (parsed.value, parsed.member.map { (text: $0, count: parsed.memberElements) })
        }
        let cursor = result["nextCursor"]
        guard let items, let count = items.count, result.objectValue != nil, cursor.map({ $0.stringValue != nil || $0 == .null }) ?? true
        else {
            // Not a page: the decoder says what is wrong with it (the items put back as they were).
            var whole = result.objectValue ?? [:]
            if let items { whole["items"] = try? JSONValue.parse(items.text) }
            _ = try decode(result.objectValue == nil ? result : .object(whole))
            throw StenoClientError.unexpectedResult(method: method, reason: "not a page of items")
        }
        return ReprintedPage(items: items.text, count: count, nextCursor: cursor?.stringValue)
    }
}
