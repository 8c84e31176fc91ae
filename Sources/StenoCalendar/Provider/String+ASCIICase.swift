extension StringProtocol {
    /// Whether the text is `literal` ignoring the case of ASCII letters: the comparison
    /// protocol tokens want (Graph enumerations, iCalendar names and parameters), made on the
    /// bytes without building an upper- or lowercased copy.
    func equalsIgnoringASCIICase(_ literal: StaticString) -> Bool {
        guard utf8.count == literal.utf8CodeUnitCount else { return false }
        return literal.withUTF8Buffer { expected in
            utf8.withContiguousStorageIfAvailable { Self.sameIgnoringASCIICase($0, expected) }
                ?? Self.sameIgnoringASCIICase(Array(utf8), expected)
        }
    }

    private static func sameIgnoringASCIICase(_ bytes: some Collection<UInt8>, _ expected: UnsafeBufferPointer<UInt8>) -> Bool {
        zip(bytes, expected).allSatisfy { byte, wanted in
            if byte == wanted { return true }
            let folded = byte | 0x20
            return folded == wanted | 0x20 && folded >= UInt8(ascii: "a") && folded <= UInt8(ascii: "z")
        }
    }
}
