import Foundation

/// Writes a JSON array element by element straight into bytes, without building `JSONValue`s
/// first: for the arrays the catalog hands to SQLite's `json_each` on hot paths (thousands of
/// ids, paths or ETags per statement). Elements are written exactly as `JSONValue.write(to:)`
/// writes them (strings escape `"`, `\` and control characters; `/` and non-ASCII stay as is).
///
///     var ids = JSONArrayWriter(reservingCapacity: 8 * count)
///     for id in recordingIDs { ids.append(id) }
///     let argument = ids.text  // "[1,2,3]"
public struct JSONArrayWriter: Sendable {
    private var writer: _JSONWriter
    private var isEmpty = true

    /// Starts an empty array, reserving `capacity` bytes for the elements.
    public init(reservingCapacity capacity: Int = 0) {
        writer = _JSONWriter(out: [], indent: nil)
        writer.out.reserveCapacity(capacity + 2)
        writer.out.append(UInt8(ascii: "["))
    }

    /// Appends a string element, or `null` for nil.
    public mutating func append(_ string: String?) {
        separate()
        if let string { writer.writeString(string) } else { writer.appendASCII("null") }
    }

    /// Appends an integer element.
    public mutating func append(_ number: Int64) {
        separate()
        writer.writeInteger(number)
    }

    /// Appends any JSON value as one element.
    public mutating func append(_ value: JSONValue) {
        separate()
        writer.write(value, level: 0)
    }

    /// Appends a nested array as one element, written by `body`.
    public mutating func appendArray(_ body: (inout JSONArrayWriter) -> Void) {
        separate()
        Self.write(into: &writer.out, body)
    }

    /// Appends an object as one element, its members written by `body` in the order given (not
    /// sorted): for stored formats that fixed their member order, and for wire results that
    /// write their members in sorted key order themselves.
    public mutating func appendObject(_ body: (inout JSONObjectWriter) -> Void) {
        separate()
        JSONObjectWriter.write(into: &writer.out, body)
    }

    /// Appends `value`'s object as one element.
    public mutating func append(object value: some JSONObjectWritable) {
        separate()
        JSONObjectWriter.write(into: &writer.out) { value.writeMembers(to: &$0) }
    }

    /// Appends a double element as `JSONValue.double` writes it (shortest round-trip text;
    /// `null` when not finite).
    public mutating func append(_ number: Double) {
        separate()
        writer.writeDouble(number)
    }

    /// Appends the array `body` writes to `out`: `out` is lent to the writer (no copy, no
    /// buffer of its own) and handed back with the closed array.
    public static func write(into out: inout [UInt8], _ body: (inout JSONArrayWriter) -> Void) {
        var array = JSONArrayWriter(lending: &out)
        array.writer.out.append(UInt8(ascii: "["))
        body(&array)
        array.writer.out.append(UInt8(ascii: "]"))
        swap(&array.writer.out, &out)
    }

    /// A writer continuing `out`, which is left empty until it is swapped back.
    private init(lending out: inout [UInt8]) {
        writer = _JSONWriter(out: [], indent: nil)
        swap(&writer.out, &out)
    }

    /// The array so far, closed, as bytes.
    public var bytes: [UInt8] { writer.out + [UInt8(ascii: "]")] }

    /// The array so far, closed, as text.
    public var text: String {
        var out = writer.out
        out.append(UInt8(ascii: "]"))
        return String(decoding: out, as: UTF8.self)
    }

    /// Writes the comma between elements.
    @inline(__always)
    private mutating func separate() {
        if isEmpty {
            isEmpty = false
        } else {
            writer.out.append(UInt8(ascii: ","))
        }
    }

    /// A JSON array of strings.
    public static func text(of strings: some Sequence<String>) -> String {
        var array = JSONArrayWriter(reservingCapacity: strings.underestimatedCount * 24)
        for string in strings { array.append(string) }
        return array.text
    }

    /// A JSON array of strings and nulls.
    public static func text(of strings: some Sequence<String?>) -> String {
        var array = JSONArrayWriter(reservingCapacity: strings.underestimatedCount * 24)
        for string in strings { array.append(string) }
        return array.text
    }

    /// A JSON array of integers.
    public static func text(of numbers: some Sequence<Int64>) -> String {
        var array = JSONArrayWriter(reservingCapacity: numbers.underestimatedCount * 8)
        for number in numbers { array.append(number) }
        return array.text
    }
}
