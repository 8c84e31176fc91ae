import Testing

@testable import StenoCore

@Suite("Attendees")
struct AttendeeTests {
    @Test("emails are kept lowercase, ASCII or not", arguments: [
        ("bob@example.com", "bob@example.com"), ("Alice@Example.COM", "alice@example.com"),
        ("ÉVA@exemple.fr", "éva@exemple.fr"), ("zoë@example.com", "zoë@example.com"), ("", ""),
    ])
    func emailsAreLowercased(given: String, stored: String) {
        #expect(Attendee(email: given).email == stored)
    }
}
