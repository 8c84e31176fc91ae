import Testing

@testable import StenoService

/// `Range` headers as a phone's player sends them, and everything else a client might.
@Suite("Byte ranges")
struct ByteRangeTests {
    @Test(arguments: [
        ("bytes=0-0", ByteRange.part(0...0)),
        ("bytes=0-", .part(0...999)),
        ("bytes=100-199", .part(100...199)),
        ("bytes=900-5000", .part(900...999)),
        ("bytes=-50", .part(950...999)),
        ("bytes=-5000", .part(0...999)),
        (" Bytes=10-20 ", .part(10...20)),
        ("bytes = 10-20", .whole),
        ("bytes=1000-", .unsatisfiable),
        ("bytes=99999999999999999999999-", .unsatisfiable),
        ("bytes=-0", .unsatisfiable),
        ("bytes=5-4", .whole),
        ("bytes=0-1,5-6", .whole),
        ("items=0-1", .whole),
        ("bytes=a-b", .whole),
        ("bytes=-", .whole),
        ("bytes=+1-2", .whole),
    ])
    func headersOfAThousandByteFile(header: String, expected: ByteRange) {
        #expect(ByteRange.parse(header, size: 1000) == expected, "\(header)")
    }

    @Test func noHeaderAndAnEmptyFile() {
        #expect(ByteRange.parse(nil, size: 10) == .whole)
        #expect(ByteRange.parse("bytes=0-", size: 0) == .unsatisfiable)
        #expect(ByteRange.parse("bytes=-1", size: 0) == .unsatisfiable)
    }

    /// Random headers never crash and a part always lies inside the file.
    @Test func fuzzedHeadersGiveRangesInsideTheFile() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("bytes=-0123456789, \t9x")
        for _ in 0..<20_000 {
            let size = Int64.random(in: 0...5000, using: &generator)
            let header = String((0..<Int.random(in: 0...24, using: &generator)).map { _ in alphabet.randomElement(using: &generator) ?? "-" })
            if case .part(let range) = ByteRange.parse(header, size: size) {
                #expect(range.lowerBound >= 0 && range.upperBound < size, "\(header) of \(size): \(range)")
            }
        }
    }
}
