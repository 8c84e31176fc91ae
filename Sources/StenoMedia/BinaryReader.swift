/// A bounds-checked cursor over bytes read from a file.
///
/// Every accessor throws `.truncated` instead of reading past the end, and errors carry
/// the file offset (`base + position`).
struct BinaryReader {
    let bytes: [UInt8]
    /// File offset of `bytes[0]`.
    let base: UInt64
    /// Format name used in error messages.
    let format: String
    private(set) var position: Int = 0

    init(_ bytes: [UInt8], base: UInt64, format: String) {
        self.bytes = bytes
        self.base = base
        self.format = format
    }

    var remaining: Int { bytes.count - position }
    var fileOffset: UInt64 { base + UInt64(position) }

    private func need(_ n: Int, _ what: String) throws(MediaError) {
        if n < 0 || n > remaining {
            throw MediaError.truncated(format, at: fileOffset, "\(what) needs \(n) bytes, \(remaining) left")
        }
    }

    mutating func skip(_ n: Int, _ what: String = "field") throws(MediaError) {
        try need(n, what)
        position += n
    }

    mutating func seek(to p: Int) throws(MediaError) {
        guard p >= 0, p <= bytes.count else {
            throw MediaError.truncated(format, at: base + UInt64(max(0, p)), "position beyond the data read")
        }
        position = p
    }

    mutating func u8(_ what: String = "field") throws(MediaError) -> UInt8 {
        try need(1, what)
        defer { position += 1 }
        return bytes[position]
    }

    mutating func take(_ n: Int, _ what: String = "field") throws(MediaError) -> ArraySlice<UInt8> {
        try need(n, what)
        defer { position += n }
        return bytes[position..<(position + n)]
    }

    mutating func uintBE(_ n: Int, _ what: String = "field") throws(MediaError) -> UInt64 {
        try need(n, what)
        var v: UInt64 = 0
        for i in 0..<n { v = (v << 8) | UInt64(bytes[position + i]) }
        position += n
        return v
    }

    mutating func uintLE(_ n: Int, _ what: String = "field") throws(MediaError) -> UInt64 {
        try need(n, what)
        var v: UInt64 = 0
        for i in stride(from: n - 1, through: 0, by: -1) { v = (v << 8) | UInt64(bytes[position + i]) }
        position += n
        return v
    }

    mutating func u16be(_ w: String = "field") throws(MediaError) -> UInt16 { UInt16(try uintBE(2, w)) }
    mutating func u32be(_ w: String = "field") throws(MediaError) -> UInt32 { UInt32(try uintBE(4, w)) }
    mutating func u64be(_ w: String = "field") throws(MediaError) -> UInt64 { try uintBE(8, w) }
    mutating func u16le(_ w: String = "field") throws(MediaError) -> UInt16 { UInt16(try uintLE(2, w)) }
    mutating func u32le(_ w: String = "field") throws(MediaError) -> UInt32 { UInt32(try uintLE(4, w)) }
    mutating func u64le(_ w: String = "field") throws(MediaError) -> UInt64 { try uintLE(8, w) }

    /// A four-character code such as "moov".
    mutating func fourCC(_ what: String = "four-character code") throws(MediaError) -> String {
        fourCCString(try take(4, what))
    }
}

/// Renders four bytes as printable text for messages ("moov", or hex escapes).
func fourCCString(_ b: ArraySlice<UInt8>) -> String {
    var s = ""
    for c in b {
        if c >= 0x20 && c < 0x7F { s.unicodeScalars.append(Unicode.Scalar(c)) } else { s += "\\x" + String(c, radix: 16) }
    }
    return s
}

extension Array where Element == UInt8 {
    /// Big-endian unsigned integer of `n` bytes at `i`, or nil when out of range.
    func be(_ i: Int, _ n: Int) -> UInt64? {
        guard i >= 0, n >= 0, i + n <= count else { return nil }
        var v: UInt64 = 0
        for k in 0..<n { v = (v << 8) | UInt64(self[i + k]) }
        return v
    }

    /// Little-endian unsigned integer of `n` bytes at `i`, or nil when out of range.
    func le(_ i: Int, _ n: Int) -> UInt64? {
        guard i >= 0, n >= 0, i + n <= count else { return nil }
        var v: UInt64 = 0
        for k in stride(from: n - 1, through: 0, by: -1) { v = (v << 8) | UInt64(self[i + k]) }
        return v
    }

    /// True when the bytes at `i` equal `ascii`.
    func matches(_ ascii: String, at i: Int) -> Bool {
        let u = Array(ascii.utf8)
        guard i >= 0, i + u.count <= count else { return false }
        for k in 0..<u.count where self[i + k] != u[k] { return false }
        return true
    }
}

/// Text decoding helpers shared by the tag readers. Trimming happens on bytes, before
/// decoding, because this runs for every tag of every file.
enum TextDecoding {
    static func utf8(_ b: ArraySlice<UInt8>) -> String {
        String(decoding: trimmedBytes(b.prefix(MediaLimits.maxTagValueBytes)), as: UTF8.self)
    }

    static func latin1(_ b: ArraySlice<UInt8>) -> String {
        let t = trimmedBytes(b.prefix(MediaLimits.maxTagValueBytes))
        if t.allSatisfy({ $0 < 0x80 }) { return String(decoding: t, as: UTF8.self) }
        var s = ""
        s.unicodeScalars.reserveCapacity(t.count)
        for c in t { s.unicodeScalars.append(Unicode.Scalar(c)) }
        return s
    }

    /// UTF-16 with optional BOM; big-endian when no BOM and `bigEndian`.
    static func utf16(_ b: ArraySlice<UInt8>, bigEndian: Bool) -> String {
        var bytes = b.prefix(MediaLimits.maxTagValueBytes)
        var be = bigEndian
        if bytes.count >= 2 {
            let b0 = bytes[bytes.startIndex], b1 = bytes[bytes.startIndex + 1]
            if b0 == 0xFF && b1 == 0xFE { be = false; bytes = bytes.dropFirst(2) } else if b0 == 0xFE && b1 == 0xFF { be = true; bytes = bytes.dropFirst(2) }
        }
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2)
        var i = bytes.startIndex
        while i + 1 < bytes.endIndex {
            let u = be ? UInt16(bytes[i]) << 8 | UInt16(bytes[i + 1]) : UInt16(bytes[i + 1]) << 8 | UInt16(bytes[i])
            if u == 0 { break }  // terminator
            units.append(u)
            i += 2
        }
        while let f = units.first, f == 0x20 { units.removeFirst() }
        while let l = units.last, l == 0x20 || l == 0x0A || l == 0x0D || l == 0x09 { units.removeLast() }
        return String(decoding: units, as: UTF16.self)
    }

    /// Cuts at the first NUL and drops surrounding whitespace.
    static func trimmedBytes(_ b: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var s = b
        if let z = s.firstIndex(of: 0) { s = s[s.startIndex..<z] }
        while let f = s.first, f == 0x20 || f == 0x09 || f == 0x0A || f == 0x0D { s = s.dropFirst() }
        while let l = s.last, l == 0x20 || l == 0x09 || l == 0x0A || l == 0x0D { s = s.dropLast() }
        return s
    }
}
