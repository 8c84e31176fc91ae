import Foundation

/// A qualified XML name: namespace URI and local name. Prefixes are irrelevant: `<D:href>`,
/// `<href xmlns="DAV:">` and `<x:href xmlns:x="DAV:">` all name `DAV: href`.
public struct XMLName: Sendable, Hashable, CustomStringConvertible {
    public var namespace: String
    public var local: String

    public init(_ namespace: String, _ local: String) {
        self.namespace = namespace
        self.local = local
    }

    public var description: String { "{\(namespace)}\(local)" }
}

/// A parsed XML element with its children and text: a small DOM for WebDAV responses.
public struct XMLElementNode: Sendable, Hashable {
    public var name: XMLName
    /// Attributes by local name (WebDAV uses unqualified attributes such as `<C:comp name=…>`).
    public var attributes: [String: String]
    public var children: [XMLElementNode]
    /// The element's own character data and CDATA, concatenated (not its children's), as sent
    /// (line ends are not normalized, so `calendar-data` keeps its CRLFs).
    public var text: String

    public init(name: XMLName, attributes: [String: String] = [:], children: [XMLElementNode] = [], text: String = "") {
        self.name = name
        self.attributes = attributes
        self.children = children
        self.text = text
    }

    /// The first child with this name.
    public func child(_ name: XMLName) -> XMLElementNode? { children.first { $0.name == name } }

    /// All children with this name.
    public func children(_ name: XMLName) -> [XMLElementNode] { children.filter { $0.name == name } }

    /// The element's text with surrounding white space removed.
    public var trimmedText: String { text.trimmingCharacters(in: .whitespacesAndNewlines) }
}

/// Why an XML document could not be read.
public struct XMLReadError: Error, Sendable, Hashable, CustomStringConvertible {
    public var line: Int
    public var message: String

    public init(line: Int, message: String) {
        self.line = line
        self.message = message
    }

    public var description: String { "invalid XML at line \(line): \(message)" }
}

/// Reads a whole XML document into ``XMLElementNode``s, resolving namespaces.
///
/// A strict reader of the XML that WebDAV servers send (UTF-8; elements, attributes,
/// namespaces, character and entity references, CDATA, comments, processing instructions).
/// It exists because FoundationXML's `XMLParser` on Linux crashes the process on some
/// malformed input (invalid UTF-8 in a name; an attribute without a value such as
/// `<m xml<?pi?>/>`), and a CalDAV response must never be able to do that. DTDs are refused
/// (no entity expansion), nesting is bounded, and every malformation is an ``XMLReadError``.
public enum XMLElementTree {
    /// The deepest nesting accepted: WebDAV responses are shallow; a deeper document is hostile.
    public static let maximumDepth = 64

    /// Parses `data` and returns the root element.
    public static func parse(_ data: Data) throws(XMLReadError) -> XMLElementNode {
        var reader = XMLByteReader(bytes: [UInt8](data))
        return try reader.document()
    }
}

/// The reader's state: the bytes and a position.
private struct XMLByteReader {
    let bytes: [UInt8]
    var position = 0

    static let xmlNamespace = "http://www.w3.org/XML/1998/namespace"

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    // MARK: Document

    mutating func document() throws(XMLReadError) -> XMLElementNode {
        guard String(validating: bytes, as: UTF8.self) != nil else { throw failure("the document is not valid UTF-8") }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
        try skipMisc(allowDoctype: false)
        guard position < bytes.count else { throw failure("the document is empty") }
        let root = try element(depth: 1, namespaces: ["xml": Self.xmlNamespace])
        try skipMisc(allowDoctype: false)
        guard position == bytes.count else { throw failure("content after the root element") }
        return root
    }

    /// White space, comments and processing instructions (the XML declaration among them).
    mutating func skipMisc(allowDoctype: Bool) throws(XMLReadError) {
        while position < bytes.count {
            if isWhitespace(bytes[position]) {
                position += 1
            } else if hasPrefix("<?") {
                try skip(past: "?>", what: "processing instruction")
            } else if hasPrefix("<!--") {
                try skip(past: "-->", what: "comment")
            } else if hasPrefix("<!") {
                throw failure("document type declarations are not accepted")
            } else {
                return
            }
        }
    }

    // MARK: Elements

    mutating func element(depth: Int, namespaces inherited: [String: String]) throws(XMLReadError) -> XMLElementNode {
        guard depth <= XMLElementTree.maximumDepth else {
            throw failure("elements nested deeper than \(XMLElementTree.maximumDepth)")
        }
        try expect(UInt8(ascii: "<"))
        let qualifiedName = try name()
        var rawAttributes: [(String, String)] = []
        var selfClosing = false
        while true {
            let hadSpace = skipWhitespace()
            guard position < bytes.count else { throw failure("unexpected end of the document in <\(qualifiedName)>") }
            let byte = bytes[position]
            if byte == UInt8(ascii: "/") {
                position += 1
                try expect(UInt8(ascii: ">"))
                selfClosing = true
                break
            }
            if byte == UInt8(ascii: ">") {
                position += 1
                break
            }
            guard hadSpace else { throw failure("expected white space before an attribute in <\(qualifiedName)>") }
            let attributeName = try name()
            skipWhitespace()
            try expect(UInt8(ascii: "="))
            skipWhitespace()
            let value = try quotedValue()
            guard !rawAttributes.contains(where: { $0.0 == attributeName }) else {
                throw failure("attribute \(attributeName) repeated in <\(qualifiedName)>")
            }
            rawAttributes.append((attributeName, value))
        }
        var namespaces = inherited
        var attributes: [String: String] = [:]
        for (attributeName, value) in rawAttributes {
            if attributeName == "xmlns" {
                namespaces[""] = value
            } else if attributeName.hasPrefix("xmlns:") {
                let prefix = String(attributeName.dropFirst(6))
                guard !prefix.isEmpty, !value.isEmpty else { throw failure("an empty namespace prefix or URI in <\(qualifiedName)>") }
                namespaces[prefix] = value
            } else {
                attributes[Self.localPart(attributeName)] = value
            }
        }
        let elementName = try resolve(qualifiedName, namespaces: namespaces)
        var node = XMLElementNode(name: elementName, attributes: attributes)
        if selfClosing { return node }
        try content(of: &node, qualifiedName: qualifiedName, depth: depth, namespaces: namespaces)
        return node
    }

    /// Text, CDATA, comments, PIs and children up to the matching end tag.
    mutating func content(of node: inout XMLElementNode, qualifiedName: String, depth: Int, namespaces: [String: String])
        throws(XMLReadError)
    {
        while true {
            guard position < bytes.count else { throw failure("unexpected end of the document inside <\(qualifiedName)>") }
            if bytes[position] != UInt8(ascii: "<") {
                node.text += try text()
            } else if hasPrefix("</") {
                position += 2
                let closing = try name()
                skipWhitespace()
                try expect(UInt8(ascii: ">"))
                guard closing == qualifiedName else { throw failure("</\(closing)> closes <\(qualifiedName)>") }
                return
            } else if hasPrefix("<![CDATA[") {
                position += 9
                let start = position
                guard let end = find("]]>") else { throw failure("unterminated CDATA section") }
                node.text += String(decoding: bytes[start..<end], as: UTF8.self)
                position = end + 3
            } else if hasPrefix("<!--") {
                try skip(past: "-->", what: "comment")
            } else if hasPrefix("<?") {
                try skip(past: "?>", what: "processing instruction")
            } else if hasPrefix("<!") {
                throw failure("unexpected markup declaration inside <\(qualifiedName)>")
            } else {
                node.children.append(try element(depth: depth + 1, namespaces: namespaces))
            }
        }
    }

    /// `prefix:local` → namespace URI and local name.
    func resolve(_ qualifiedName: String, namespaces: [String: String]) throws(XMLReadError) -> XMLName {
        guard let colon = qualifiedName.firstIndex(of: ":") else {
            return XMLName(namespaces[""] ?? "", qualifiedName)
        }
        let prefix = String(qualifiedName[..<colon])
        let local = String(qualifiedName[qualifiedName.index(after: colon)...])
        guard !prefix.isEmpty, !local.isEmpty, !local.contains(":") else { throw failure("malformed name \(qualifiedName)") }
        guard let namespace = namespaces[prefix] else { throw failure("undeclared namespace prefix \(prefix) in <\(qualifiedName)>") }
        return XMLName(namespace, local)
    }

    static func localPart(_ qualifiedName: String) -> String {
        guard let colon = qualifiedName.lastIndex(of: ":") else { return qualifiedName }
        return String(qualifiedName[qualifiedName.index(after: colon)...])
    }

    // MARK: Tokens

    /// An XML name: no white space or markup characters, not starting with a digit, `-` or `.`.
    mutating func name() throws(XMLReadError) -> String {
        let start = position
        while position < bytes.count {
            let byte = bytes[position]
            if isWhitespace(byte) || Self.nameStops.contains(byte) { break }
            position += 1
        }
        guard position > start else { throw failure("expected a name") }
        let first = bytes[start]
        if first == UInt8(ascii: "-") || first == UInt8(ascii: ".") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) {
            throw failure("a name cannot start with \(Character(Unicode.Scalar(first)))")
        }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    static let nameStops: Set<UInt8> = Set("<>/=\"'!?&;[]()".utf8)

    /// A quoted attribute value with references decoded.
    mutating func quotedValue() throws(XMLReadError) -> String {
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") || bytes[position] == UInt8(ascii: "'") else {
            throw failure("expected a quoted attribute value")
        }
        let quote = bytes[position]
        position += 1
        var value = ""
        var segment = position
        while position < bytes.count {
            let byte = bytes[position]
            if byte == quote {
                value += String(decoding: bytes[segment..<position], as: UTF8.self)
                position += 1
                return value
            }
            if byte == UInt8(ascii: "<") { throw failure("< in an attribute value") }
            if byte == UInt8(ascii: "&") {
                value += String(decoding: bytes[segment..<position], as: UTF8.self)
                value += try reference()
                segment = position
                continue
            }
            position += 1
        }
        throw failure("unterminated attribute value")
    }

    /// Character data up to the next `<`, references decoded.
    mutating func text() throws(XMLReadError) -> String {
        var value = ""
        var segment = position
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "<") { break }
            if byte == UInt8(ascii: "&") {
                value += String(decoding: bytes[segment..<position], as: UTF8.self)
                value += try reference()
                segment = position
                continue
            }
            position += 1
        }
        value += String(decoding: bytes[segment..<position], as: UTF8.self)
        return value
    }

    /// `&lt;` `&gt;` `&amp;` `&quot;` `&apos;` `&#N;` `&#xH;` (no other entities: no DTDs).
    mutating func reference() throws(XMLReadError) -> String {
        position += 1  // &
        let start = position
        while position < bytes.count, bytes[position] != UInt8(ascii: ";"), position - start < 12 { position += 1 }
        guard position < bytes.count, bytes[position] == UInt8(ascii: ";") else { throw failure("unterminated character reference") }
        let body = String(decoding: bytes[start..<position], as: UTF8.self)
        position += 1
        switch body {
        case "lt": return "<"
        case "gt": return ">"
        case "amp": return "&"
        case "quot": return "\""
        case "apos": return "'"
        default:
            var number: UInt32?
            if body.hasPrefix("#x") || body.hasPrefix("#X") {
                number = UInt32(body.dropFirst(2), radix: 16)
            } else if body.hasPrefix("#") {
                number = UInt32(body.dropFirst(), radix: 10)
            }
            guard let number, number != 0, let scalar = Unicode.Scalar(number) else { throw failure("unknown reference &\(body);") }
            return String(Character(scalar))
        }
    }

    // MARK: Helpers

    @discardableResult
    mutating func skipWhitespace() -> Bool {
        let start = position
        while position < bytes.count, isWhitespace(bytes[position]) { position += 1 }
        return position > start
    }

    func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    mutating func expect(_ byte: UInt8) throws(XMLReadError) {
        guard position < bytes.count, bytes[position] == byte else {
            throw failure("expected \(Character(Unicode.Scalar(byte)))")
        }
        position += 1
    }

    func hasPrefix(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard position + count <= bytes.count else { return false }
        let pointer = text.utf8Start
        for offset in 0..<count where bytes[position + offset] != pointer[offset] { return false }
        return true
    }

    /// The index where `terminator` next starts, from the current position.
    func find(_ terminator: StaticString) -> Int? {
        let count = terminator.utf8CodeUnitCount
        let pointer = terminator.utf8Start
        var index = position
        while index + count <= bytes.count {
            if bytes[index] == pointer[0] {
                var matches = true
                for offset in 1..<count where bytes[index + offset] != pointer[offset] {
                    matches = false
                    break
                }
                if matches { return index }
            }
            index += 1
        }
        return nil
    }

    mutating func skip(past terminator: StaticString, what: String) throws(XMLReadError) {
        guard let end = find(terminator) else { throw failure("unterminated \(what)") }
        position = end + terminator.utf8CodeUnitCount
    }

    func failure(_ message: String) -> XMLReadError {
        let end = min(position, bytes.count)
        let line = 1 + bytes[0..<end].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        return XMLReadError(line: line, message: message)
    }
}
