extension JSONValue {
    /// The text `JSONValue.parse(bytes).prettyPrintedBytes(indent:)` gives, written straight
    /// from the bytes in one pass, without building the value: for JSON that is only passed on
    /// to a reader (`steno … -o json` of tens of thousands of items).
    ///
    /// The input is checked exactly as `parse` checks it (the same errors at the same offsets);
    /// nothing malformed is passed through. Strings without escapes and objects whose keys are
    /// plain ASCII in strictly increasing order (what the daemon writes) are copied as they
    /// are; any other object (unsorted, duplicate, escaped or non-ASCII keys) is parsed and
    /// written by the serializer, so the output is always the parsed value's.
    public static func prettyPrintedBytes(
        parsing bytes: [UInt8], indent: Int = 2, maxDepth: Int = 256
    ) throws(JSONParseError) -> [UInt8] {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(JSONParseError) -> [UInt8] in
                var parser = _JSONParser(bytes: buffer, maxDepth: maxDepth)
                var writer = _JSONWriter(out: [], indent: max(0, indent))
                writer.out.reserveCapacity(buffer.count * 2)
                parser.skipWhitespace()
                try parser.reprintValue(into: &writer, level: 0)
                try parser.finishDocument()
                return writer.out
            }
        }
        return try result.get()
    }
}

extension _JSONParser {
    /// Writes the value at `index` as the serializer writes its parsed form, at nesting
    /// `level`, and leaves `index` after it; returns the number of elements of an array.
    @discardableResult
    mutating func reprintValue(into writer: inout _JSONWriter, level: Int) throws(JSONParseError) -> Int? {
        guard index < bytes.count else {
            throw error(.unexpectedEnd, at: index, "expected a value, found end of input")
        }
        switch bytes[index] {
        case UInt8(ascii: "\""): try reprintString(into: &writer)
        case UInt8(ascii: "{"): try reprintObject(into: &writer, level: level)
        case UInt8(ascii: "["): return try reprintArray(into: &writer, level: level)
        default:
            // Literals and numbers are short: parse them and let the serializer write them
            // (`-0`, `1E2` and overflowing integers change their spelling).
            writer.write(try parseValue(), level: level)
        }
        return nil
    }

    /// A string: copied as it is when it holds no escape (the serializer would write the same
    /// bytes: it escapes only quotes, backslashes and control bytes, which cannot stand raw);
    /// else decoded and written by the serializer.
    mutating func reprintString(into writer: inout _JSONWriter) throws(JSONParseError) {
        let open = index
        if let end = try scanPlainString() {
            writer.out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[open...end]))
        } else {
            writer.writeString(try parseEscapedString(openedAt: open))
        }
    }

    /// An array, element by element; returns how many it holds.
    mutating func reprintArray(into writer: inout _JSONWriter, level: Int) throws(JSONParseError) -> Int {
        let open = index
        if try openContainer(closing: UInt8(ascii: "]")) {
            writer.appendASCII("[]")
            return 0
        }
        defer { depth -= 1 }
        writer.out.append(UInt8(ascii: "["))
        var count = 0
        repeat {
            if count > 0 { writer.out.append(UInt8(ascii: ",")) }
            count += 1
            writer.reprintNewline(level: level + 1)
            try reprintValue(into: &writer, level: level + 1)
        } while try !skipSeparator(inContainerAt: open)
        writer.reprintNewline(level: level)
        writer.out.append(UInt8(ascii: "]"))
        return count
    }

    /// An object whose keys are plain ASCII in strictly increasing order is copied member by
    /// member (its sorted, duplicate-free form is itself); at the first other key the object is
    /// parsed again from its brace and written by the serializer, which sorts and drops
    /// duplicates as the tree does.
    mutating func reprintObject(into writer: inout _JSONWriter, level: Int) throws(JSONParseError) {
        let open = index
        let outputStart = writer.out.count
        if try openContainer(closing: UInt8(ascii: "}")) {
            writer.appendASCII("{}")
            return
        }
        defer { depth -= 1 }
        writer.out.append(UInt8(ascii: "{"))
        var previousKey = 0..<0
        repeat {
            try expectKey(inObjectAt: open)
            guard let key = try scanOrderedKey(after: previousKey) else {
                writer.out.removeSubrange(outputStart...)
                depth -= 1
                index = open
                writer.write(try parseObject(), level: level)
                depth += 1  // for the deferred decrement
                return
            }
            if !previousKey.isEmpty { writer.out.append(UInt8(ascii: ",")) }
            previousKey = key
            writer.reprintNewline(level: level + 1)
            writer.out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[(key.lowerBound - 1)...key.upperBound]))
            try skipColon(inObjectAt: open)
            writer.out.append(UInt8(ascii: ":"))
            if writer.indent != nil { writer.out.append(UInt8(ascii: " ")) }
            try reprintValue(into: &writer, level: level + 1)
        } while try !skipSeparator(inContainerAt: open)
        writer.reprintNewline(level: level)
        writer.out.append(UInt8(ascii: "}"))
    }

    /// Skips the key opening at `index` and returns the range of its text, when it is
    /// printable ASCII without escapes and sorts after `previous` (byte order, which is Swift's
    /// `String` order for ASCII); else nil, leaving `index` anywhere.
    mutating func scanOrderedKey(after previous: Range<Int>) throws(JSONParseError) -> Range<Int>? {
        let start = index + 1
        index = Self.skipPlainASCII(bytes, from: start)
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        let key = start..<index
        index += 1
        guard previous.isEmpty && !key.isEmpty || isAscending(previous, key) else { return nil }
        return key
    }

    /// Whether the bytes of `first` sort strictly before those of `second`.
    func isAscending(_ first: Range<Int>, _ second: Range<Int>) -> Bool {
        let common = min(first.count, second.count)
        for offset in 0..<common where bytes[first.lowerBound + offset] != bytes[second.lowerBound + offset] {
            return bytes[first.lowerBound + offset] < bytes[second.lowerBound + offset]
        }
        return first.count < second.count
    }

    /// Checks that only whitespace follows the document's value.
    mutating func finishDocument() throws(JSONParseError) {
        skipWhitespace()
        guard index < bytes.count else { return }
        if bytes[index] >= 0x80, _JSONUTF8.sequenceLength(in: bytes, at: index) == nil {
            throw error(.invalidUTF8, at: index, "invalid UTF-8 byte after the JSON value")
        }
        throw error(.trailingData, at: index, "unexpected \(describeByte(at: index)) after the JSON value")
    }
}

extension _JSONWriter {
    /// `newline(level:)` copied from a ready line break and spaces: appending repeated spaces
    /// one by one was a tenth of steno's CPU for `recordings --all -o json`.
    @inline(__always)
    mutating func reprintNewline(level: Int) {
        let spaces: StaticString = "\n                                                                "
        guard let indent else { return }
        let count = indent * level
        guard count < spaces.utf8CodeUnitCount else { return newline(level: level) }
        out.append(contentsOf: UnsafeBufferPointer(start: spaces.utf8Start, count: count + 1))
    }
}
