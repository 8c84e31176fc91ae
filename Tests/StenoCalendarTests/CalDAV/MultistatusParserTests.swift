import Foundation
import StenoTesting
import Testing

@testable import StenoCalendar

@Suite("Multistatus parsing")
struct MultistatusParserTests {
    let base = URL(string: "https://dav.example.com/calendars/alice/work/")!

    func parse(_ xml: String) throws -> Multistatus {
        try MultistatusParser.parse(Data(xml.utf8), base: base)
    }

    @Test("any namespace prefixes, or a default namespace, name the same elements")
    func oddPrefixes() throws {
        let prefixed = try parse("""
            <?xml version="1.0"?>
            <zz:multistatus xmlns:zz="DAV:" xmlns:q="urn:ietf:params:xml:ns:caldav" xmlns:cs0="http://calendarserver.org/ns/">
              <zz:response><zz:href>/calendars/alice/work/a.ics</zz:href>
                <zz:propstat><zz:prop><zz:getetag>"1"</zz:getetag><cs0:getctag>c1</cs0:getctag></zz:prop>
                <zz:status>HTTP/1.1 200 OK</zz:status></zz:propstat></zz:response>
              <zz:sync-token>tok-1</zz:sync-token>
            </zz:multistatus>
            """)
        let defaulted = try parse("""
            <multistatus xmlns="DAV:"><response><href>/calendars/alice/work/a.ics</href>
            <propstat><prop><getetag>"1"</getetag><getctag xmlns="http://calendarserver.org/ns/">c1</getctag></prop>
            <status>HTTP/1.1 200 OK</status></propstat></response><sync-token>tok-1</sync-token></multistatus>
            """)
        for result in [prefixed, defaulted] {
            #expect(result.syncToken == "tok-1")
            #expect(result.responses.count == 1)
            #expect(result.responses.first?.text(.getETag) == "\"1\"")
            #expect(result.responses.first?.text(.getCTag) == "c1")
            #expect(result.responses.first?.href.path == "/calendars/alice/work/a.ics")
        }
    }

    @Test("relative, absolute and differently escaped hrefs give one resource key")
    func hrefNormalization() throws {
        let spellings = [
            "a%20b@x.ics", "/calendars/alice/work/a%20b@x.ics", "https://dav.example.com/calendars/alice/work/a%20b%40x.ics",
            "https://DAV.example.com:443/calendars/alice/work/a b@x.ics", "/calendars/alice/./work/../work/a%20b%40x.ics",
            "/calendars//alice/work/a%20b@x.ics", " /calendars/alice/work/a%20b%40x.ics\n",
        ]
        let keys = spellings.compactMap { DAVHref($0, relativeTo: base)?.path }
        #expect(keys.count == spellings.count)
        #expect(Set(keys) == ["/calendars/alice/work/a%20b@x.ics"])
        // Non-ASCII in either form.
        #expect(DAVHref("caf%C3%A9.ics", relativeTo: base)?.path == DAVHref("café.ics", relativeTo: base)?.path)
        // Escaped lowercase hex.
        #expect(DAVHref("%3a.ics", relativeTo: base)?.path == DAVHref("%3A.ics", relativeTo: base)?.path)
        // An escaped slash is part of the name, not a separator.
        #expect(DAVHref("a%2Fb.ics", relativeTo: base)?.path == "/calendars/alice/work/a%2Fb.ics")
        // The request URL keeps the server and the canonical path.
        #expect(DAVHref("b.ics", relativeTo: base)?.url.absoluteString == "https://dav.example.com/calendars/alice/work/b.ics")
        #expect(DAVHref("", relativeTo: base) == nil)
    }

    @Test("properties in a 404 propstat are absent; a response-level status is kept")
    func mixedStatuses() throws {
        let result = try parse("""
            <D:multistatus xmlns:D="DAV:" xmlns:A="http://apple.com/ns/ical/">
             <D:response><D:href>/calendars/alice/work/</D:href>
              <D:propstat><D:prop><D:displayname>Work</D:displayname></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat>
              <D:propstat><D:prop><A:calendar-color/></D:prop><D:status>HTTP/1.1 404 Not Found</D:status></D:propstat>
             </D:response>
             <D:response><D:href>gone.ics</D:href><D:status>HTTP/1.1 404</D:status></D:response>
             <D:response><D:href>x.ics</D:href><D:href>y.ics</D:href><D:status>HTTP/1.1 404 Not Found</D:status></D:response>
             <D:response><D:status>HTTP/1.1 200 OK</D:status></D:response>
            </D:multistatus>
            """)
        #expect(result.responses.count == 4)
        #expect(result.responses[0].text(.displayName) == "Work")
        #expect(result.responses[0].property(.calendarColor) == nil)
        #expect(result.responses[0].effectiveStatus == 200)
        #expect(result.responses[1].effectiveStatus == 404)
        #expect(result.responses[1].href.path == "/calendars/alice/work/gone.ics")
        #expect(result.responses[2...].map(\.href.lastSegment) == ["x.ics", "y.ics"])
    }

    @Test("calendar-data as CDATA or escaped text, line ends kept")
    func calendarData() throws {
        let ics = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:a&b\r\nSUMMARY:x < y\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        let escaped = ics.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
        for data in ["<![CDATA[\(ics)]]>", escaped] {
            let result = try parse("""
                <m:multistatus xmlns:m="DAV:" xmlns:cal="urn:ietf:params:xml:ns:caldav"><m:response><m:href>a.ics</m:href>
                <m:propstat><m:prop><m:getetag>"e"</m:getetag><cal:calendar-data>\(data)</cal:calendar-data></m:prop>
                <m:status>HTTP/1.1 200 OK</m:status></m:propstat></m:response></m:multistatus>
                """)
            let text = try #require(result.responses.first?.property(.calendarData)?.text)
            #expect(text.contains("UID:a&b\r\n"))
            #expect(text.contains("SUMMARY:x < y"))
            #expect(throws: Never.self) { try ICalendar.parse(text) }
        }
    }

    @Test("status lines and error bodies")
    func statusLines() {
        #expect(MultistatusParser.statusCode("HTTP/1.1 200 OK") == 200)
        #expect(MultistatusParser.statusCode("HTTP/1.1 507") == 507)
        #expect(MultistatusParser.statusCode("  HTTP/2 404 Not Found ") == 404)
        #expect(MultistatusParser.statusCode("200 OK") == nil)
        #expect(MultistatusParser.statusCode("HTTP/1.1 abc") == nil)
        let conditions = MultistatusParser.errorConditions(Data(#"<e:error xmlns:e="DAV:"><e:valid-sync-token/></e:error>"#.utf8))
        #expect(conditions == [XMLName("DAV:", "valid-sync-token")])
        #expect(MultistatusParser.errorConditions(Data("not xml".utf8)).isEmpty)
    }

    @Test("a document that is not a multistatus is a typed error")
    func notMultistatus() {
        #expect(throws: MultistatusError.self) { try parse(#"<D:error xmlns:D="DAV:"><D:valid-sync-token/></D:error>"#) }
        #expect(throws: MultistatusError.self) { try parse("<multistatus/>") }  // no DAV: namespace
    }
}

@Suite("Multistatus fuzzing")
struct MultistatusFuzzTests {
    let base = URL(string: "http://127.0.0.1:1/cal/")!
    static let sample = """
        <?xml version="1.0" encoding="utf-8"?>
        <D:multistatus xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:response><D:href>/cal/a.ics</D:href>
        <D:propstat><D:prop><D:getetag>"1"</D:getetag><C:calendar-data><![CDATA[BEGIN:VCALENDAR
        END:VCALENDAR]]></C:calendar-data></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>
        <D:response><D:href>b.ics</D:href><D:status>HTTP/1.1 404 Not Found</D:status></D:response>
        <D:sync-token>http://example/sync/1</D:sync-token></D:multistatus>
        """

    @Test("every truncation of a valid response parses or throws a typed error")
    func truncations() {
        let bytes = Array(Self.sample.utf8)
        var failures = 0
        for length in 0..<bytes.count {
            do {
                _ = try MultistatusParser.parse(Data(bytes[0..<length]), base: base)
            } catch {
                failures += 1
            }
        }
        // Every proper prefix cuts the root element open.
        #expect(failures == bytes.count)
        #expect((try? MultistatusParser.parse(Data(bytes), base: base))?.responses.count == 2)
    }

    @Test("random bytes, byte mutations and inserted markup never crash")
    func garbage() {
        let tokens = [
            "é", "東", ":", "<", ">", "&", "\"", "]]>", "<![CDATA[", "xmlns:D=\"\"", "xmlns=\"x\"", "&#0;", "&#xD800;",
            "<!DOCTYPE a [<!ENTITY e \"x\">]>", "&e;", ":a", "a:", "<:>", "</>", "\u{0}", "🙂", " a:b=\"1\"", "<?pi?>", "<!-- -->",
        ]
        var generator = SeededRandom(seed: 0x5EED)
        let bytes = Array(Self.sample.utf8)
        for round in 0..<3000 {
            var input: [UInt8]
            if round % 3 == 0 {
                input = (0..<Int(generator.next() % 512)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            } else if round % 3 == 1 {
                input = bytes
                for _ in 0..<Int(1 + generator.next() % 6) {
                    let index = Int(generator.next() % UInt64(input.count))
                    input.insert(contentsOf: Array(tokens[Int(generator.next() % UInt64(tokens.count))].utf8), at: index)
                }
            } else {
                input = bytes
                for _ in 0..<Int(1 + generator.next() % 8) {
                    let index = Int(generator.next() % UInt64(input.count))
                    input[index] = UInt8(truncatingIfNeeded: generator.next())
                }
            }
            do {
                _ = try MultistatusParser.parse(Data(input), base: base)
            } catch {
                // A typed error is the expected outcome; reaching here is the point.
            }
        }
    }

    @Test("inputs that crash FoundationXML's XMLParser on Linux are typed errors here")
    func foundationCrashers() {
        let inputs = [
            "<m xml<?pi?>/>", "<D:multistatus xml<?pi?>ns:D=\"DAV:\"/>", "<D:m x", "<D:m", "<a></>", "<a b/>", "<a b=c/>",
            "<!DOCTYPE a [<!ENTITY e \"x\">]><a>&e;</a>", "<a>&#0;</a>", "<a>&#xD800;</a>", "<D:a/>", "<a xmlns:D=\"\"/>",
        ]
        for input in inputs {
            #expect(throws: MultistatusError.self, "\(input)") { try MultistatusParser.parse(Data(input.utf8), base: base) }
        }
        var invalidUTF8 = Array(#"<D:multistatus xmlns:D="DAV:"><D:calendar-da"#.utf8)
        invalidUTF8 += [0xE7] + Array("a/></D:multistatus>".utf8)
        #expect(throws: MultistatusError.self) { try MultistatusParser.parse(Data(invalidUTF8), base: base) }
    }

    @Test("deep nesting is refused rather than recursed into")
    func deepNesting() {
        let depth = 5000
        let xml = #"<D:multistatus xmlns:D="DAV:">"# + String(repeating: "<D:x>", count: depth) + String(repeating: "</D:x>", count: depth)
            + "</D:multistatus>"
        #expect(throws: MultistatusError.self) { try MultistatusParser.parse(Data(xml.utf8), base: base) }
    }
}
