extension InboxPath {
    /// A file name (or path) read from the file system as text, losslessly: bytes that are not
    /// UTF-8 are written `\xHH`, and in such a name a backslash is written `\\`, so the
    /// original bytes can always be had back (``fileSystemBytes(of:)``). A UTF-8 name is kept
    /// as it is unless it holds `\x` or `\\` itself, which would read as escapes: it is
    /// escaped too. The catalog, the logs and the CLI show names in this form.
    public static func escapedName(_ bytes: some Collection<UInt8>) -> String {
        if let text = String(validating: bytes, as: UTF8.self), !text.contains("\\x"), !text.contains("\\\\") {
            return text
        }
        var escaped = ""
        var rest = bytes[...]
        while let first = rest.first {
            if first == UInt8(ascii: "\\") {
                escaped += "\\\\"
                rest = rest.dropFirst()
                continue
            }
            let length = validSequenceLength(rest)
            if length > 0, let character = String(validating: rest.prefix(length), as: UTF8.self) {
                escaped += character
                rest = rest.dropFirst(length)
            } else {
                escaped += "\\x" + String(first, radix: 16, uppercase: true).leftPadded(to: 2)
                rest = rest.dropFirst()
            }
        }
        return escaped
    }

    /// Whether `path` is in the escaped form of a name that ``escapedName(_:)`` had to escape.
    public static func hasEscapes(_ path: String) -> Bool {
        path.contains("\\x") || path.contains("\\\\")
    }

    /// The bytes of the file name `path` stands for: the inverse of ``escapedName(_:)``.
    public static func fileSystemBytes(of path: String) -> [UInt8] {
        let utf8 = Array(path.utf8)
        guard hasEscapes(path) else { return utf8 }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = 0
        while index < utf8.count {
            if utf8[index] == UInt8(ascii: "\\"), index + 1 < utf8.count {
                if utf8[index + 1] == UInt8(ascii: "\\") {
                    bytes.append(UInt8(ascii: "\\"))
                    index += 2
                    continue
                }
                if utf8[index + 1] == UInt8(ascii: "x"), index + 3 < utf8.count,
                    let byte = UInt8(String(decoding: utf8[(index + 2)...(index + 3)], as: UTF8.self), radix: 16)
                {
                    bytes.append(byte)
                    index += 4
                    continue
                }
            }
            bytes.append(utf8[index])
            index += 1
        }
        return bytes
    }

    /// The length of the well-formed UTF-8 sequence `bytes` starts with, or 0.
    private static func validSequenceLength(_ bytes: some Collection<UInt8>) -> Int {
        guard let lead = bytes.first else { return 0 }
        let length: Int
        switch lead {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: length = 2
        case 0xE0...0xEF: length = 3
        case 0xF0...0xF4: length = 4
        default: return 0
        }
        return bytes.count >= length && String(validating: bytes.prefix(length), as: UTF8.self) != nil ? length : 0
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
