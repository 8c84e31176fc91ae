import StenoCore
import Testing

@Suite("User validation")
struct UserValidationTests {
    @Test(arguments: ["alice", "bob.smith", "r2d2", "Zoë", "a_b-c"])
    func validNames(_ name: String) throws {
        try UserValidation.checkName(name)
    }

    @Test(arguments: ["", ".dot", "-dash", "a/b", "a b", "..", String(repeating: "n", count: 65)])
    func invalidNames(_ name: String) {
        #expect(throws: UserValidation.Problem.self) { try UserValidation.checkName(name) }
    }

    @Test func emailsAreNormalised() throws {
        #expect(try UserValidation.normalizedEmail("  Bob@Example.COM ") == "bob@example.com")
        for bad in ["bob", "@example.com", "bob@", "bob@localhost", "a b@example.com", "a@b@c.d"] {
            #expect(throws: UserValidation.Problem.self, "\(bad)") { _ = try UserValidation.normalizedEmail(bad) }
        }
    }

    @Test func draftDeduplicatesKeepingOrder() throws {
        let draft = try UserDraft(name: "x", emails: ["B@x.org", "a@x.org", "b@X.org"], uids: [5, 1, 5]).validated()
        #expect(draft.emails == ["b@x.org", "a@x.org"])
        #expect(draft.uids == [5, 1])
    }

    @Test func changeKeepsWhatItDoesNotName() throws {
        let user = User(id: 1, name: "a", displayName: "A", emails: ["a@x.org"], uids: [7], role: .admin)
        let changed = try UserChange(role: .member).applied(to: user)
        #expect(changed.name == "a" && changed.displayName == "A" && changed.emails == ["a@x.org"] && changed.uids == [7])
        #expect(changed.role == .member)
        #expect(try UserChange(displayName: .some(nil)).applied(to: user).displayName == nil)
    }
}
