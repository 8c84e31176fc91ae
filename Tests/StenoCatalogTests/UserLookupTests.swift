import Testing

@testable import StenoCatalog

/// The user decisions both catalogs share: which lookups a reference means, and which taken
/// claim a change is told about.
@Suite("User lookups and claim conflicts")
struct UserLookupTests {
    @Test(arguments: [
        (" Alice@Example.COM ", [UserLookup.email("alice@example.com")]),
        ("42", [.id(42), .name("42")]),
        (" 007 ", [.id(7), .name("007")]),
        ("alice", [.name("alice")]),
        ("99999999999999999999", [.name("99999999999999999999")]),
        ("", [.name("")]),
    ])
    func aReferenceIsLookedUpInOneOrder(reference: String, plan: [UserLookup]) {
        #expect(UserLookup.plan(for: reference) == plan)
    }

    @Test func theNameIsReportedBeforeAnEmailBeforeAUid() {
        let email = (email: "a@x.org", owner: "bob")
        let uid = (uid: UInt32(1001), owner: "carol")
        #expect(UserClaimConflict.first(name: "alice", nameTaken: true, email: email, uid: uid) == .name("alice"))
        #expect(UserClaimConflict.first(name: "alice", nameTaken: false, email: email, uid: uid) == .email("a@x.org", owner: "bob"))
        #expect(UserClaimConflict.first(name: "alice", nameTaken: false, email: nil, uid: uid) == .uid(1001, owner: "carol"))
        #expect(UserClaimConflict.first(name: "alice", nameTaken: false, email: nil, uid: nil) == nil)
    }

    @Test func eachConflictSaysWhoHoldsWhat() {
        #expect(UserClaimConflict.name("alice").error == .conflict("a user named \"alice\" exists already"))
        #expect(UserClaimConflict.email("a@x.org", owner: "bob").error == .conflict("the email a@x.org belongs to user \"bob\" already"))
        #expect(UserClaimConflict.uid(1001, owner: "carol").error == .conflict("uid 1001 belongs to user \"carol\" already"))
    }
}
