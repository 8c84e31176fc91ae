extension JSONValue {
    /// Appends the compact serialization to `out`.
    ///
    /// Output is deterministic: object keys are sorted (Swift `String` order, which is code-point
    /// order for the usual ASCII keys), so the same value gives the same bytes in every process.
    /// Strings escape `"`, `\` and control characters (as `\n`, `\t`… or `\u00XX`); `/` and
    /// non-ASCII are written as is (UTF-8). Doubles use Swift's shortest round-trip `description`
    /// (`2.0`, `0.1`, `1e-05`); non-finite doubles are written as `null`.
    public func write(to out: inout [UInt8]) {
        var writer = _JSONWriter(out: out, indent: nil)
        out = []  // hand the buffer to the writer so appends don't copy it
        writer.write(self, level: 0)
        out = writer.out
    }

    /// The compact serialization as bytes.
    public var serializedBytes: [UInt8] {
        var writer = _JSONWriter(out: [], indent: nil)
        writer.out.reserveCapacity(estimatedSize)
        writer.write(self, level: 0)
        return writer.out
    }

    /// The compact serialization as a string.
    public var serializedString: String {
        String(decoding: serializedBytes, as: UTF8.self)
    }

    /// A multi-line rendering for humans: sorted keys, `indent` spaces per level, `": "` between
    /// keys and values, empty containers as `[]` / `{}`.
    public func prettyPrinted(indent: Int = 2) -> String {
        String(decoding: prettyPrintedBytes(indent: indent), as: UTF8.self)
    }

    /// `prettyPrinted` as UTF-8 bytes, for output written as bytes (no String in between).
    public func prettyPrintedBytes(indent: Int = 2) -> [UInt8] {
        var writer = _JSONWriter(out: [], indent: max(0, indent))
        writer.out.reserveCapacity(estimatedSize * 2)
        writer.write(self, level: 0)
        return writer.out
    }

    /// A cheap guess of the serialized size, to reserve capacity once.
    var estimatedSize: Int {
        switch self {
        case .null, .bool: return 5
        case .int, .double: return 20
        case .string(let text): return text.utf8.count + 2
        case .array(let values): return values.count * 16 + 2
        case .object(let object): return object.count * 32 + 2
        }
    }
}

/// Appends JSON to one growing byte buffer.
struct _JSONWriter {
    var out: [UInt8]
    /// Spaces per level for pretty printing; nil for compact output.
    let indent: Int?

    mutating func write(_ value: JSONValue, level: Int) {
        switch value {
        case .null: appendASCII("null")
        case .bool(let flag): appendASCII(flag ? "true" : "false")
        case .int(let number): writeInteger(number)
        case .double(let number): writeDouble(number)
        case .string(let text): writeString(text)
        case .array(let values):
            if values.isEmpty {
                appendASCII("[]")
                return
            }
            out.append(UInt8(ascii: "["))
            for (position, element) in values.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                newline(level: level + 1)
                write(element, level: level + 1)
            }
            newline(level: level)
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            if object.isEmpty {
                appendASCII("{}")
                return
            }
            out.append(UInt8(ascii: "{"))
            var first = true
            var members: [_JSONMember] = []
            members.reserveCapacity(object.count)
            for (key, value) in object { members.append(_JSONMember(key: key, value: value)) }
            members.sort { $0.key < $1.key }
            for member in members {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                newline(level: level + 1)
                writeString(member.key)
                out.append(UInt8(ascii: ":"))
                if indent != nil { out.append(UInt8(ascii: " ")) }
                write(member.value, level: level + 1)
            }
            newline(level: level)
            out.append(UInt8(ascii: "}"))
        }
    }

    @inline(__always)
    mutating func newline(level: Int) {
        guard let indent else { return }
        out.append(0x0A)
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * level))
    }

    @inline(__always)
    mutating func appendASCII(_ text: StaticString) {
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    mutating func writeInteger(_ number: Int64) {
        if number == 0 {
            out.append(UInt8(ascii: "0"))
            return
        }
        if number < 0 { out.append(UInt8(ascii: "-")) }
        // Work on the magnitude as UInt64 so Int64.min has no overflow.
        var magnitude = number.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 slots; a UInt64 has at most 20 digits
        withUnsafeMutableBytes(of: &digits) { buffer in
            var position = buffer.count
            while magnitude > 0 {
                position -= 1
                buffer[position] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            }
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[position...]))
        }
    }

    mutating func writeDouble(_ number: Double) {
        guard number.isFinite else {
            appendASCII("null")
            return
        }
        // `description` is the shortest text that round-trips and always has a '.' or an
        // exponent, so the value reads back as a double (2.0 stays 2.0, not 2).
        out.append(contentsOf: number.description.utf8)
    }

    mutating func writeString(_ text: String) {
        out.append(UInt8(ascii: "\""))
        let handled: Void? = text.utf8.withContiguousStorageIfAvailable { buffer in
            writeEscaped(buffer)
        }
        if handled == nil {
            var copy = text
            copy.withUTF8 { writeEscaped($0) }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Copies runs that need no escaping in bulk, escaping only `"`, `\` and control bytes.
    mutating func writeEscaped(_ buffer: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        var position = 0
        let count = buffer.count
        let raw = UnsafeRawBufferPointer(buffer)
        while position < count {
            // Skip eight clean bytes at a time (SWAR); non-ASCII words take the bytewise path.
            if position + 8 <= count {
                let word = raw.loadUnaligned(fromByteOffset: position, as: UInt64.self)
                if !Self.mayNeedEscaping(word) {
                    position += 8
                    continue
                }
            }
            let byte = buffer[position]
            position += 1
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            let escapeAt = position - 1
            if runStart < escapeAt {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[runStart..<escapeAt]))
            }
            runStart = position
            out.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""): out.append(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\"))
            case 0x0A: out.append(UInt8(ascii: "n"))
            case 0x0D: out.append(UInt8(ascii: "r"))
            case 0x09: out.append(UInt8(ascii: "t"))
            case 0x08: out.append(UInt8(ascii: "b"))
            case 0x0C: out.append(UInt8(ascii: "f"))
            default:
                let hex: StaticString = "0123456789abcdef"
                out.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                out.append(hex.utf8Start[Int(byte >> 4)])
                out.append(hex.utf8Start[Int(byte & 0x0F)])
            }
        }
        if runStart < count {
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[runStart...]))
        }
    }

    /// Whether any byte of `word` may be a control byte, a quote or a backslash. False
    /// positives (e.g. non-ASCII bytes) are fine: the caller then checks bytewise.
    @inline(__always)
    static func mayNeedEscaping(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        return ((word &- ones &* 0x20) | (quote &- ones) & ~quote | (backslash &- ones) & ~backslash) & highs != 0
    }
}
