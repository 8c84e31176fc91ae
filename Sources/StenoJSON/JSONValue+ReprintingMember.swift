/// A JSON document parsed into values except one member, which is pretty-printed straight
/// from its bytes instead (see `JSONValue.parse(_:reprintingMemberAt:indent:maxDepth:)`).
public struct JSONPartlyReprinted: Sendable {
    /// The document without the member (it is absent from its object).
    public var value: JSONValue
    /// The member's value as `prettyPrintedBytes(indent:)` writes it (at the first level);
    /// nil when the document has no such member.
    public var member: [UInt8]?
    /// How many elements the member holds when it is an array; nil otherwise.
    public var memberElements: Int?
}

extension JSONValue {
    /// Parses one JSON text as `parse` does, but writes the member at `path` (object keys from
    /// the top) as pretty-printed text instead of building it: a reply whose small envelope
    /// is read and whose large list is only passed on (a page of `steno … -o json`).
    ///
    /// The whole text is checked once, with `parse`'s rules and errors; a duplicate key's last
    /// member wins, as in `parse`.
    public static func parse(
        _ bytes: [UInt8], reprintingMemberAt path: [String], indent: Int = 2, maxDepth: Int = 256
    ) throws(JSONParseError) -> JSONPartlyReprinted {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(JSONParseError) -> JSONPartlyReprinted in
                var parser = _JSONParser(bytes: buffer, maxDepth: maxDepth)
                var writer = _JSONWriter(out: [], indent: max(0, indent))
                var parsed = JSONPartlyReprinted(value: .null)
                parser.skipWhitespace()
                parsed.value = try parser.parseValue(reprintingMemberAt: path[...], into: &parsed, writer: &writer)
                try parser.finishDocument()
                return parsed
            }
        }
        return try result.get()
    }
}

extension _JSONParser {
    /// `parseValue`, with the member at `path` (when the value is an object holding it)
    /// reprinted into `parsed` rather than parsed.
    mutating func parseValue(
        reprintingMemberAt path: ArraySlice<String>, into parsed: inout JSONPartlyReprinted, writer: inout _JSONWriter
    ) throws(JSONParseError) -> JSONValue {
        guard let wanted = path.first, index < bytes.count, bytes[index] == UInt8(ascii: "{") else { return try parseValue() }
        let open = index
        var members: [String: JSONValue] = [:]
        if try openContainer(closing: UInt8(ascii: "}")) { return .object(members) }
        defer { depth -= 1 }
        repeat {
            try expectKey(inObjectAt: open)
            let key = try parseString()
            try skipColon(inObjectAt: open)
            if key != wanted {
                members[key] = try parseValue()
            } else if path.count == 1 {
                // A later duplicate replaces an earlier one, as in the tree.
                members[key] = nil
                writer.out.removeAll(keepingCapacity: true)
                writer.out.reserveCapacity(bytes.count - index + bytes.count / 2)
                parsed.memberElements = try reprintValue(into: &writer, level: 0)
                parsed.member = writer.out
            } else {
                (parsed.member, parsed.memberElements) = (nil, nil)
                members[key] = try parseValue(reprintingMemberAt: path.dropFirst(), into: &parsed, writer: &writer)
            }
        } while try !skipSeparator(inContainerAt: open)
        return .object(members)
    }
}
