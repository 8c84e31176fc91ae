import StenoCore
import Testing

/// How `--with` reads what a person typed.
@Suite("Attendee matches")
struct AttendeeMatchTests {
    @Test func emailsDomainsAndNames() {
        #expect(AttendeeMatch("Bob@Corp.Example") == .email("bob@corp.example"))
        #expect(AttendeeMatch("@Corp.Example") == .domain("corp.example"))
        #expect(AttendeeMatch("corp.example") == .domain("corp.example"))
        #expect(AttendeeMatch("sub-1.corp.example") == .domain("sub-1.corp.example"))
        #expect(AttendeeMatch(" Bob ") == .name("Bob"))
        #expect(AttendeeMatch("J. Smith") == .name("J. Smith"))
        #expect(AttendeeMatch("Zoë") == .name("Zoë"))
        for nothing in ["", "   ", "@", ".", "%_", String(repeating: "a", count: 257)] {
            #expect(AttendeeMatch(nothing) == nil, "\(nothing)")
        }
    }

    /// Patterns escape LIKE's wildcards: a `%` or `_` typed is that character.
    @Test func patternsAndSearchWords() {
        #expect(AttendeeMatch("@corp.example")?.likePattern == "%@corp.example")
        #expect(AttendeeMatch("Bob_S%")?.likePattern == "%bob\\_s\\%%")
        #expect(AttendeeMatch("bob@corp.example")?.likePattern == nil)
        #expect(AttendeeMatch("corp.example")?.searchWords?.words == ["corp", "example"])
        #expect(AttendeeMatch("corp.example")?.searchWords?.isPhrase == true)
        #expect(AttendeeMatch("Bob Sm")?.searchWords?.words == ["Bob", "Sm"])
        #expect(AttendeeMatch("Bob Sm")?.searchWords?.isPhrase == false)
        #expect(AttendeeMatch("Bob Sm")?.matchesNames == true && AttendeeMatch("corp.example")?.matchesNames == false)
    }
}
