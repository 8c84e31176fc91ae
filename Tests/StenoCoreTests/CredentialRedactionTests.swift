import StenoCore
import Testing

@Suite("Credential redaction")
struct CredentialRedactionTests {
    @Test func aURLLosesItsUserInfoQueryValuesAndTokenSegments() {
        #expect(CredentialRedaction.redactedURL("http://alice:s3cret@cal.example:8080/a/b.ics") == "http://cal.example:8080/a/b.ics")
        #expect(CredentialRedaction.redactedURL("https://h/feed.ics?token=abc&x=1#frag") == "https://h/feed.ics?token=REDACTED&x=REDACTED")
        #expect(
            CredentialRedaction.redactedURL("https://calendar.google.com/calendar/ical/a%40b/private-0123abcd/basic.ics")
                == "https://calendar.google.com/calendar/ical/a%40b/REDACTED/basic.ics")
        #expect(CredentialRedaction.redactedURL("https://h/owa/calendar/9f8e7d6c5b4a39281706ab/calendar.ics") == "https://h/owa/calendar/REDACTED/calendar.ics")
        #expect(CredentialRedaction.redactedURL("https://h/team-calendar.ics") == "https://h/team-calendar.ics")
        #expect(CredentialRedaction.hasUserInfo("http://u:p@h/") && !CredentialRedaction.hasUserInfo("http://h/a@b"))
    }

    @Test func everyURLInAMessageIsRedactedAndTheRestKept() {
        let message = "GET http://bob:pw@10.0.0.5/cal.ics?key=zzz failed; then \"webcal://x:y@h/c\" too"
        #expect(CredentialRedaction.redacted(message) == "GET http://10.0.0.5/cal.ics?key=REDACTED failed; then \"webcal://h/c\" too")
        #expect(CredentialRedaction.redacted("no url: here") == "no url: here")
        #expect(CredentialRedaction.redacted("://odd and http://a@b") == "://odd and http://b")
    }
}
