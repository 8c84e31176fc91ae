import Foundation

/// Reads a Graph delta page straight into ``GraphPage`` without building a JSON tree: each
/// key is matched as it is read and the values Steno does not mirror are skipped. About a
/// quarter of `JSONDecoder`'s CPU time per event on Linux (a full sync reads tens of
/// thousands of events).
///
/// This is the one place JSON is read without StenoJSON, on purpose: the delta pages are the
/// largest JSON a sync reads, and building a `JSONValue` tree first (then decoding it) costs
/// several times this reader's time. Every other Graph response (errors, sign-in, writes) goes
/// through `JSONValue`.
///
/// Strict JSON (RFC 8259); any malformed input is a ``GraphPageReader/Failure`` with the
/// byte offset. Nesting deeper than ``maximumDepth`` is refused rather than recursed into.
struct GraphPageReader {
    /// Why a page could not be read, and where.
    struct Failure: Error, CustomStringConvertible {
        var offset: Int
        var reason: String
        var description: String { "invalid JSON at byte \(offset): \(reason)" }
    }

    static let maximumDepth = 64

    /// The response body, borrowed for the read: a reader never outlives the closure of
    /// ``reading(_:_:)`` that made it. (A buffer, not an array: the reader checks every index
    /// itself, and the body is not copied first.)
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    /// Reads a whole page.
    static func page(_ data: Data) throws -> GraphPage {
        try reading(data) { reader in
            let page = try reader.readPage()
            reader.skipWhitespace()
            guard reader.index == reader.bytes.count else { throw reader.failure("text after the page") }
            return page
        }
    }

    /// Reads one event (`GET /events/{id}`).
    static func event(_ data: Data) throws -> GraphEventPayload {
        try reading(data) { reader in try reader.readEvent() }
    }

    private static func reading<Value>(_ data: Data, _ read: (inout GraphPageReader) throws -> Value) throws -> Value {
        try data.withUnsafeBytes { raw in
            var reader = GraphPageReader(bytes: raw.bindMemory(to: UInt8.self))
            return try read(&reader)
        }
    }

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    // MARK: Graph shapes

    private mutating func readPage() throws -> GraphPage {
        var page = GraphPage(value: [], nextLink: nil, deltaLink: nil)
        var sawValue = false
        try readObject { reader, key in
            switch key {
            case "value":
                sawValue = true
                try reader.readArray { reader in page.value.append(try reader.readEvent()) }
            case "@odata.nextLink": page.nextLink = try reader.readOptionalString()
            case "@odata.deltaLink": page.deltaLink = try reader.readOptionalString()
            default: try reader.skipValue(depth: 1)
            }
        }
        guard sawValue else { throw failure("a page without \"value\"") }
        return page
    }

    private mutating func readEvent() throws -> GraphEventPayload {
        var event = GraphEventPayload(id: "")
        var sawID = false
        try readObject { reader, key in
            switch key {
            case "id":
                event.id = try reader.readString()
                sawID = true
            case "@removed":
                event.removed = GraphEventPayload.Removed(reason: nil)
                try reader.readObject { reader, key in
                    if key == "reason" { event.removed?.reason = try reader.readOptionalString() } else { try reader.skipValue(depth: 3) }
                }
            case "changeKey": event.changeKey = try reader.readOptionalString()
            case "iCalUId": event.iCalUId = try reader.readOptionalString()
            case "uid": event.uid = try reader.readOptionalString()
            case "seriesMasterId": event.seriesMasterId = try reader.readOptionalString()
            case "type": event.type = try reader.readOptionalString()
            case "subject": event.subject = try reader.readOptionalString()
            case "isAllDay": event.isAllDay = try reader.readOptionalBool()
            case "isCancelled": event.isCancelled = try reader.readOptionalBool()
            case "showAs": event.showAs = try reader.readOptionalString()
            case "start": event.start = try reader.readDateTime()
            case "end": event.end = try reader.readDateTime()
            case "originalStart": event.originalStart = try reader.readOptionalString()
            case "originalStartTimeZone": event.originalStartTimeZone = try reader.readOptionalString()
            case "organizer": event.organizer = try reader.readRecipient()
            case "attendees":
                var attendees: [GraphEventPayload.AttendeePayload] = []
                if try !reader.readNull() {
                    try reader.readArray { reader in attendees.append(try reader.readAttendee()) }
                }
                event.attendees = attendees
            case "location":
                event.location = try reader.readSingleField("displayName").map { GraphEventPayload.Location(displayName: $0) }
            case "onlineMeeting":
                event.onlineMeeting = try reader.readSingleField("joinUrl").map { GraphEventPayload.OnlineMeeting(joinUrl: $0) }
            case "onlineMeetingUrl": event.onlineMeetingUrl = try reader.readOptionalString()
            case "webLink": event.webLink = try reader.readOptionalString()
            default: try reader.skipValue(depth: 2)
            }
        }
        guard sawID else { throw failure("an event without \"id\"") }
        return event
    }

    private mutating func readDateTime() throws -> GraphEventPayload.DateTimeTimeZone? {
        if try readNull() { return nil }
        var dateTime: String?
        var zone: String?
        try readObject { reader, key in
            switch key {
            case "dateTime": dateTime = try reader.readOptionalString()
            case "timeZone": zone = try reader.readOptionalString()
            default: try reader.skipValue(depth: 3)
            }
        }
        return dateTime.map { GraphEventPayload.DateTimeTimeZone(dateTime: $0, timeZone: zone) }
    }

    private mutating func readEmailAddress() throws -> GraphEventPayload.EmailAddress? {
        if try readNull() { return nil }
        var address = GraphEventPayload.EmailAddress(name: nil, address: nil)
        try readObject { reader, key in
            switch key {
            case "name": address.name = try reader.readOptionalString()
            case "address": address.address = try reader.readOptionalString()
            default: try reader.skipValue(depth: 4)
            }
        }
        return address
    }

    private mutating func readRecipient() throws -> GraphEventPayload.Recipient? {
        if try readNull() { return nil }
        var recipient = GraphEventPayload.Recipient(emailAddress: nil)
        try readObject { reader, key in
            if key == "emailAddress" { recipient.emailAddress = try reader.readEmailAddress() } else { try reader.skipValue(depth: 3) }
        }
        return recipient
    }

    private mutating func readAttendee() throws -> GraphEventPayload.AttendeePayload {
        var attendee = GraphEventPayload.AttendeePayload(type: nil, status: nil, emailAddress: nil)
        try readObject { reader, key in
            switch key {
            case "type": attendee.type = try reader.readOptionalString()
            case "emailAddress": attendee.emailAddress = try reader.readEmailAddress()
            case "status":
                attendee.status = try reader.readSingleField("response").map { GraphEventPayload.ResponseStatus(response: $0) }
            default: try reader.skipValue(depth: 4)
            }
        }
        return attendee
    }

    /// An object (or null) of which one string field matters: nil for null, else the field's value.
    private mutating func readSingleField(_ wanted: StaticString) throws -> String?? {
        if try readNull() { return nil }
        var value: String?
        try readObject { reader, key in
            if key == wanted { value = try reader.readOptionalString() } else { try reader.skipValue(depth: 4) }
        }
        return .some(value)
    }

    // MARK: JSON

    /// Reads an object, handing each member's name (compared with literals, never made a
    /// String: an event has dozens) to `member`, which must consume the value.
    private mutating func readObject(_ member: (inout GraphPageReader, Text) throws -> Void) throws {
        try expect(UInt8(ascii: "{"))
        skipWhitespace()
        if peek == UInt8(ascii: "}") {
            index += 1
            return
        }
        while true {
            skipWhitespace()
            let key = try readText()
            skipWhitespace()
            try expect(UInt8(ascii: ":"))
            skipWhitespace()
            try member(&self, key)
            skipWhitespace()
            guard let next = peek else { throw failure("the input ends inside an object") }
            index += 1
            if next == UInt8(ascii: "}") { return }
            guard next == UInt8(ascii: ",") else { throw failure("expected , or } in an object") }
        }
    }

    private mutating func readArray(_ element: (inout GraphPageReader) throws -> Void) throws {
        try expect(UInt8(ascii: "["))
        skipWhitespace()
        if peek == UInt8(ascii: "]") {
            index += 1
            return
        }
        while true {
            skipWhitespace()
            try element(&self)
            skipWhitespace()
            guard let next = peek else { throw failure("the input ends inside an array") }
            index += 1
            if next == UInt8(ascii: "]") { return }
            guard next == UInt8(ascii: ",") else { throw failure("expected , or ] in an array") }
        }
    }

    /// Consumes `null` and says so; anything else is left in place.
    private mutating func readNull() throws -> Bool {
        skipWhitespace()
        guard peek == UInt8(ascii: "n") else { return false }
        try literal("null")
        return true
    }

    private mutating func readOptionalString() throws -> String? {
        try readNull() ? nil : try readString()
    }

    private mutating func readOptionalBool() throws -> Bool? {
        skipWhitespace()
        switch peek {
        case UInt8(ascii: "t"): try literal("true"); return true
        case UInt8(ascii: "f"): try literal("false"); return false
        case UInt8(ascii: "n"): try literal("null"); return nil
        default: throw failure("expected a boolean")
        }
    }

    private mutating func readString() throws -> String {
        try readText().string
    }

    /// A string value or member name as read: the bytes between the quotes when it holds no
    /// escape (the common case: nothing copied), else its decoded bytes.
    private mutating func readText() throws -> Text {
        try expect(UInt8(ascii: "\""))
        let start = index
        index = Self.plainRunEnd(bytes, from: index)
        if index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                defer { index += 1 }
                return Text(raw: UnsafeBufferPointer(rebasing: bytes[start..<index]))
            }
            if byte < 0x20 { throw failure("a control character inside a string") }
        }
        var scalars = [UInt8](bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return Text(decoded: scalars)
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { break }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escape)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"): scalars.append(contentsOf: try unicodeEscape())
                default: throw failure("an unknown escape \\\(Character(Unicode.Scalar(escape)))")
                }
            default:
                if byte < 0x20 { throw failure("a control character inside a string") }
                scalars.append(byte)
            }
        }
        throw failure("the input ends inside a string")
    }

    /// The index of the first quote, backslash or control character at or after `start`
    /// (`bytes.count` when there is none): where a run of plain string bytes ends. Eight bytes
    /// are tested at a time (string bytes are most of a page).
    private static func plainRunEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard let base = bytes.baseAddress else { return start }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        var index = start
        while index + 8 <= bytes.count {
            let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            let quotes = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
            let backslashes = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
            // A byte below n makes (x - n per byte) & ~x set its high bit (n ≤ 0x80): a zero
            // byte (n = 1) after the XORs, or a control character (n = 0x20).
            let found = ((quotes &- ones) & ~quotes) | ((backslashes &- ones) & ~backslashes) | ((word &- ones &* 0x20) & ~word)
            if found & highBits != 0 { break }
            index += 8
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { return index }
            index += 1
        }
        return index
    }

    /// `\uXXXX` (the `\u` consumed), with a following low surrogate for a high one.
    private mutating func unicodeEscape() throws -> [UInt8] {
        var code = try hex4()
        if (0xD800..<0xDC00).contains(code) {
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                throw failure("a lone high surrogate")
            }
            index += 2
            let low = try hex4()
            guard (0xDC00..<0xE000).contains(low) else { throw failure("a high surrogate without its low half") }
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
        }
        guard let scalar = Unicode.Scalar(code) else { throw failure("an escape that is no character") }
        return Array(String(Character(scalar)).utf8)
    }

    private mutating func hex4() throws -> UInt32 {
        guard index + 4 <= bytes.count else { throw failure("a \\u escape cut short") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            index += 1
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("a \\u escape with a non-hex digit")
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// Skips any value, nested at most ``maximumDepth`` deep.
    private mutating func skipValue(depth: Int) throws {
        guard depth <= Self.maximumDepth else { throw failure("nesting deeper than \(Self.maximumDepth)") }
        skipWhitespace()
        switch peek {
        case UInt8(ascii: "{"): try readObject { reader, _ in try reader.skipValue(depth: depth + 1) }
        case UInt8(ascii: "["): try readArray { reader in try reader.skipValue(depth: depth + 1) }
        case UInt8(ascii: "\""): _ = try readText()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        case .some(let byte) where byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte):
            let start = index
            while let next = peek, Self.isNumberByte(next) { index += 1 }
            guard index > start else { throw failure("expected a number") }
        default:
            throw failure("expected a value")
        }
    }

    private static func isNumberByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"):
            return true
        default:
            return false
        }
    }

    private mutating func literal(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw failure("the input ends inside a literal") }
        let start = index
        let matches = word.withUTF8Buffer { expected in (0..<count).allSatisfy { bytes[start + $0] == expected[$0] } }
        guard matches else { throw failure("expected \(word)") }
        index += count
    }

    private mutating func expect(_ byte: UInt8) throws {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == byte else { throw failure("expected \(Character(Unicode.Scalar(byte)))") }
        index += 1
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private func failure(_ reason: String) -> Failure { Failure(offset: index, reason: reason) }
}

extension GraphPageReader {
    /// A JSON string as read (see ``readText()``); valid only while the reader's body is.
    struct Text {
        /// The bytes between the quotes; nil for an escaped string, held decoded.
        private let raw: UnsafeBufferPointer<UInt8>?
        private let decoded: [UInt8]
        /// Its length in bytes.
        let count: Int

        init(raw: UnsafeBufferPointer<UInt8>) {
            self.raw = raw
            decoded = []
            count = raw.count
        }

        init(decoded: [UInt8]) {
            raw = nil
            self.decoded = decoded
            count = decoded.count
        }

        var string: String {
            if let raw { return String(decoding: raw, as: UTF8.self) }
            return String(decoding: decoded, as: UTF8.self)
        }

        /// Whether the text is exactly `literal`, byte for byte. The lengths are compared
        /// first: a member name is matched against a dozen literals, most of another length.
        static func == (text: Text, literal: StaticString) -> Bool {
            guard text.count == literal.utf8CodeUnitCount else { return false }
            if let raw = text.raw { return same(raw, literal) }
            return text.decoded.withUnsafeBufferPointer { same($0, literal) }
        }

        private static func same(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
            guard let start = bytes.baseAddress, bytes.count > 0 else { return true }  // both empty
            return memcmp(start, literal.utf8Start, bytes.count) == 0
        }

        /// Lets `switch key { case "id": … }` compare bytes.
        static func ~= (literal: StaticString, text: Text) -> Bool {
            text == literal
        }
    }
}
