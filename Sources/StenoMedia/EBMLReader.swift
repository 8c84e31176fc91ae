/// EBML (the binary format under Matroska/WebM): variable-length IDs and sizes,
/// including "unknown" sizes (all value bits set) used by live and browser recordings.
struct EBMLElement {
    /// Element ID with its length marker bits, e.g. 0x18538067 for Segment.
    var id: UInt32
    /// Offset of the ID's first byte.
    var start: UInt64
    /// Offset of the first data byte.
    var dataStart: UInt64
    /// Declared data size; nil when unknown.
    var size: UInt64?
    /// One past the last data byte: `dataStart + size`, or the parent's end when unknown.
    var end: UInt64
}

enum EBML {
    static let name = "Matroska"

    /// Reads the element header at `pos`; the element must fit before `limit`.
    static func element(_ src: some ByteSource, at pos: UInt64, limit: UInt64) throws(MediaError) -> EBMLElement {
        let h = try src.read(at: pos, count: Int(min(12, limit > pos ? limit - pos : 0)))
        guard let first = h.first else { throw MediaError.truncated(name, at: pos, "element header at offset \(pos) is past the end at \(limit)") }
        let idLen = first.leadingZeroBitCount + 1
        guard idLen <= 4 else { throw MediaError.invalid(name, at: pos, "element ID at offset \(pos) is longer than 4 bytes") }
        guard h.count > idLen else { throw MediaError.truncated(name, at: pos, "element header at offset \(pos) is cut off by the end at \(limit)") }
        let id = UInt32(h.be(0, idLen) ?? 0)
        let sb = h[idLen]
        let sizeLen = sb.leadingZeroBitCount + 1
        guard sizeLen <= 8 else { throw MediaError.invalid(name, at: pos + UInt64(idLen), "element size at offset \(pos + UInt64(idLen)) has no length marker") }
        guard h.count >= idLen + sizeLen else { throw MediaError.truncated(name, at: pos, "element header at offset \(pos) is cut off by the end at \(limit)") }
        var value = UInt64(sb) & (0xFF >> UInt64(sizeLen))
        var allOnes = value == (0xFF >> UInt64(sizeLen))
        for k in 1..<sizeLen {
            let c = h[idLen + k]
            value = value << 8 | UInt64(c)
            if c != 0xFF { allOnes = false }
        }
        let dataStart = pos + UInt64(idLen + sizeLen)
        if allOnes {
            return EBMLElement(id: id, start: pos, dataStart: dataStart, size: nil, end: limit)
        }
        guard value <= limit - dataStart else {
            let idText = "0x" + String(id, radix: 16, uppercase: true)
            if limit == src.size {
                throw MediaError.truncated(name, at: pos, "element \(idText) at offset \(pos) claims \(value) bytes but the file ends at \(src.size)")
            }
            throw MediaError.invalid(name, at: pos, "element \(idText) at offset \(pos) claims \(value) bytes, beyond its parent which ends at \(limit)")
        }
        return EBMLElement(id: id, start: pos, dataStart: dataStart, size: value, end: dataStart + value)
    }

    /// Reads the element header at `pos` like ``element(_:at:limit:)``, but an element whose
    /// data runs past the end of the file (a recording cut short) is read as one of unknown
    /// size ending there, with `cut` set.
    static func element(_ src: some ByteSource, at pos: UInt64, limit: UInt64, cutAtFileEnd: Bool) throws(MediaError) -> EBMLElement {
        guard cutAtFileEnd, limit == src.size else { return try element(src, at: pos, limit: limit) }
        return try elementCutAtFileEnd(src, at: pos).element
    }

    static func elementCutAtFileEnd(_ src: some ByteSource, at pos: UInt64) throws(MediaError) -> (element: EBMLElement, cut: Bool) {
        do {
            return (try element(src, at: pos, limit: src.size), false)
        } catch let error where error.kind == .truncated {
            // Only the data is cut: a header that is itself cut off stays an error.
            guard var unbounded = try? element(src, at: pos, limit: UInt64.max), unbounded.end > src.size else { throw error }
            unbounded.size = nil
            unbounded.end = src.size
            return (unbounded, true)
        }
    }

    /// The element's data, at most `cap` bytes.
    static func data(_ src: some ByteSource, _ e: EBMLElement, cap: Int = 4096) throws(MediaError) -> [UInt8] {
        try src.readExactly(at: e.dataStart, count: Int(min(e.end - e.dataStart, UInt64(cap))), format: name, what: "element at offset \(e.start)")
    }

    static func uint(_ b: [UInt8]) -> UInt64 {
        b.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    static func int(_ b: [UInt8]) -> Int64 {
        guard let f = b.first else { return 0 }
        var v: Int64 = f & 0x80 != 0 ? -1 : 0
        for c in b.prefix(8) { v = v << 8 | Int64(c) }
        return v
    }

    static func float(_ b: [UInt8]) -> Double? {
        switch b.count {
        case 4: return Double(Float(bitPattern: UInt32(uint(b))))
        case 8: return Double(bitPattern: uint(b))
        default: return nil
        }
    }

    static func string(_ b: [UInt8]) -> String { TextDecoding.utf8(b[...]) }

    /// Reads a vint (size-style, marker removed) from `b` at `i`: (value, length).
    static func vint(_ b: [UInt8], _ i: Int) -> (UInt64, Int)? {
        guard i < b.count else { return nil }
        let len = b[i].leadingZeroBitCount + 1
        guard len <= 8, i + len <= b.count else { return nil }
        var v = UInt64(b[i]) & (0xFF >> UInt64(len))
        for k in 1..<len { v = v << 8 | UInt64(b[i + k]) }
        return (v, len)
    }
}
