import Foundation

/// The members of one JSON object written straight into bytes, in the order they are written:
/// no dictionary, no `JSONValue` tree, no sort. Values are written exactly as
/// `JSONValue.write(to:)` writes them (strings escaped as it escapes them, doubles in their
/// shortest round-trip text, dates as `JSONValue(date:)`), so an object whose members are
/// written in sorted key order, its optionals left out when nil, has the same bytes as the
/// serialized tree of its `Encodable` encoding.
///
///     let bytes = JSONObjectWriter.bytes { object in
///         object.member("id", Int64(7))
///         object.member("title", meeting.title)
///     }  // {"id":7,"title":"Plan"}
///
/// The optional overloads leave the member out when the value is nil (as `encodeIfPresent`
/// does); write `null` explicitly with `member(key, JSONValue.null)`.
public struct JSONObjectWriter: Sendable {
    var writer: _JSONWriter
    private var isEmpty = true

    init(writer: _JSONWriter) { self.writer = writer }

    /// Appends the object `body` writes to `out`: `out` is lent to the writer (no copy) and
    /// handed back with the closed object.
    public static func write(into out: inout [UInt8], _ body: (inout JSONObjectWriter) throws -> Void) rethrows {
        var object = JSONObjectWriter(writer: _JSONWriter(out: [], indent: nil))
        swap(&object.writer.out, &out)
        // Hand the buffer back even when `body` throws, so the caller's bytes are not lost.
        defer { swap(&object.writer.out, &out) }
        object.writer.out.append(UInt8(ascii: "{"))
        try body(&object)
        object.writer.out.append(UInt8(ascii: "}"))
    }

    /// The object `body` writes, as bytes, `capacity` bytes reserved up front.
    public static func bytes(reservingCapacity capacity: Int = 64, _ body: (inout JSONObjectWriter) throws -> Void) rethrows -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(capacity)
        try write(into: &out, body)
        return out
    }

    // MARK: - Numbers

    /// Writes `"key":number`.
    public mutating func member(_ key: String, _ number: Int64) {
        writeKey(key)
        writer.writeInteger(number)
    }

    /// Writes `"key":number`, or nothing when `number` is nil.
    public mutating func member(_ key: String, _ number: Int64?) {
        guard let number else { return }
        member(key, number)
    }

    /// Writes `"key":number`.
    public mutating func member(_ key: String, _ number: Int) {
        member(key, Int64(number))
    }

    /// Writes `"key":number`, or nothing when `number` is nil.
    public mutating func member(_ key: String, _ number: Int?) {
        guard let number else { return }
        member(key, Int64(number))
    }

    /// Writes `"key":number` as `JSONValue.double` writes it: the shortest text that reads back
    /// as the same double (`2.0`, `0.1`, `1e-05`); `null` when not finite.
    public mutating func member(_ key: String, _ number: Double) {
        writeKey(key)
        writer.writeDouble(number)
    }

    /// Writes `"key":number` as the non-optional overload does, or nothing when nil.
    public mutating func member(_ key: String, _ number: Double?) {
        guard let number else { return }
        member(key, number)
    }

    /// Writes `"key":number` with exactly `fractionDigits` digits after the point (`0.800`),
    /// rounded half to even as C's `printf` does; a non-finite number is written as `null`.
    public mutating func member(_ key: String, _ number: Double, fractionDigits: Int) {
        writeKey(key)
        guard number.isFinite else {
            writer.appendASCII("null")
            return
        }
        writer.out.append(contentsOf: String(format: "%.\(max(0, fractionDigits))f", number).utf8)
    }

    // MARK: - Strings, flags, dates

    /// Writes `"key":"text"`, escaping `"`, `\` and control characters.
    public mutating func member(_ key: String, _ text: String) {
        writeKey(key)
        writer.writeString(text)
    }

    /// Writes `"key":"text"`, or nothing when `text` is nil.
    public mutating func member(_ key: String, _ text: String?) {
        guard let text else { return }
        member(key, text)
    }

    /// Writes `"key":true` or `"key":false`.
    public mutating func member(_ key: String, _ flag: Bool) {
        writeKey(key)
        writer.appendASCII(flag ? "true" : "false")
    }

    /// Writes `"key":"2026-11-20T09:30:00Z"` as `JSONValue(date:)` does (`.SSS` only for a
    /// sub-second part; `null` outside the years 0001–9999).
    public mutating func member(_ key: String, _ date: Date) {
        writeKey(key)
        writer.out.append(UInt8(ascii: "\""))
        if ISO8601Timestamp.write(date, to: &writer.out) {
            writer.out.append(UInt8(ascii: "\""))
        } else {
            writer.out.removeLast()
            writer.appendASCII("null")
        }
    }

    /// Writes the date as the non-optional overload does, or nothing when nil.
    public mutating func member(_ key: String, _ date: Date?) {
        guard let date else { return }
        member(key, date)
    }

    // MARK: - Nested values

    /// Writes `"key":` and any JSON value (its objects' keys sorted, as `write(to:)` does).
    public mutating func member(_ key: String, _ value: JSONValue) {
        writeKey(key)
        writer.write(value, level: 0)
    }

    /// Writes `"key":` and the object `body` writes.
    public mutating func memberObject(_ key: String, _ body: (inout JSONObjectWriter) -> Void) {
        writeKey(key)
        Self.write(into: &writer.out, body)
    }

    /// Writes `"key":` and `value`'s object.
    public mutating func member(_ key: String, object value: some JSONObjectWritable) {
        writeKey(key)
        Self.write(into: &writer.out) { value.writeMembers(to: &$0) }
    }

    /// Writes `"key":` and `value`'s object, or nothing when `value` is nil.
    public mutating func member(_ key: String, object value: (some JSONObjectWritable)?) {
        guard let value else { return }
        member(key, object: value)
    }

    /// Writes `"key":` and the array `body` writes.
    public mutating func memberArray(_ key: String, _ body: (inout JSONArrayWriter) -> Void) {
        writeKey(key)
        JSONArrayWriter.write(into: &writer.out, body)
    }

    /// Writes `"key":` and `json` as it is: compact JSON serialized before (a method's result
    /// inside its JSON-RPC reply). The caller vouches that it is one valid JSON value.
    public mutating func member(_ key: String, serialized json: [UInt8]) {
        writeKey(key)
        writer.out.append(contentsOf: json)
    }

    @inline(__always)
    private mutating func writeKey(_ key: String) {
        if isEmpty {
            isEmpty = false
        } else {
            writer.out.append(UInt8(ascii: ","))
        }
        writer.writeString(key)
        writer.out.append(UInt8(ascii: ":"))
    }
}

/// A value that writes itself as one JSON object straight into bytes, for results on hot
/// paths: the RPC server sends these bytes instead of building and sorting a `JSONValue` tree.
/// `writeMembers(to:)` must write the members in sorted key order (Swift `String` order: for
/// ASCII keys, byte order, so `iCalUIDHint` before `id`), optionals left out when nil, so the
/// bytes equal the serialized tree of the value's `Encodable` encoding (a test checks each
/// conforming type).
public protocol JSONObjectWritable {
    /// Writes the object's members, in sorted key order.
    func writeMembers(to object: inout JSONObjectWriter)

    /// A guess of the serialized size in bytes, to reserve the buffer once.
    var estimatedJSONSize: Int { get }
}

extension JSONObjectWritable {
    /// A guess for a small object.
    public var estimatedJSONSize: Int { 256 }

    /// The compact JSON object as bytes.
    public var jsonBytes: [UInt8] {
        JSONObjectWriter.bytes(reservingCapacity: estimatedJSONSize) { writeMembers(to: &$0) }
    }
}
