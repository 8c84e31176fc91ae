import Foundation
import GRDB
import StenoCore
import StenoTesting
import Testing

@testable import StenoCatalog
@testable import StenoSQLite

/// A member's `--with`, `--title` and `--recorded` pages narrowed in memory by the people,
/// titles and recorded flags held with their visible set: the titles test as SQLite's `LIKE`
/// does, the people as `meeting_people` compares addresses, and once held, a member's next
/// such page (any address, any text) reads nothing more to find its candidates.
@Suite("People, titles and recordings held with members' sets")
struct HeldMeetingDetailsTests {
    /// Characters that matter to `LIKE`: letters in both cases, accents (compared exactly),
    /// the wildcards and the escape (literal here), quotes, a NUL (where SQLite stops reading),
    /// characters of two, three and four bytes.
    static let alphabet: [String] = ["a", "A", "b", "B", "z", "Z", "%", "_", "\\", "\"", "'", " ", "é", "É", "ß", "€", "😀", "\u{0}", "1", "-"]

    @Test func titlesContainATextExactlyWhenSQLitesLikeFindsIt() throws {
        var random = SeededRandom(seed: 22)
        func text(upTo length: Int) -> String {
            (0..<Int.random(in: 0...length, using: &random)).map { _ in Self.alphabet.randomElement(using: &random) ?? "" }.joined()
        }
        let database = try DatabaseQueue()
        var found = 0
        try database.read { db in
            let like = try db.makeStatement(sql: "SELECT ? LIKE ? ESCAPE '\\'")
            for _ in 0..<4_000 {
                let title = text(upTo: 12)
                // Texts cut from the title (so many match), and texts of their own.
                var needle = text(upTo: 4)
                if Bool.random(using: &random), !title.isEmpty {
                    let characters = Array(title)
                    let start = Int.random(in: 0..<characters.count, using: &random)
                    let end = Int.random(in: start...characters.count, using: &random)
                    needle = String(characters[start..<end])
                    // With a letter's case swapped now and then.
                    if Bool.random(using: &random) { needle = needle.uppercased() }
                }
                guard HeldMeetingTitles.canAnswer(needle) else { continue }
                let expected = try Bool.fetchOne(like, arguments: [title, CatalogSQL.likePattern(containing: needle)]) ?? false
                #expect(HeldMeetingTitles.contains(title, needle) == expected, "\(title.debugDescription) LIKE %\(needle.debugDescription)%")
                if expected { found += 1 }
            }
        }
        #expect(found > 1_000, "the texts cut from titles find them")
    }

    /// A text holding a NUL is one SQLite reads only up to it, closing `%` included: such a
    /// page keeps the statement's own test, and answers as the admin's listing does.
    @Test func aTextWithANulIsLeftToTheStatement() async throws {
        let temporary = TemporaryCatalog()
        let catalog = try await temporary.open()
        let f = try await MeetingFixture.make(catalog)
        try await f.linkAll()
        #expect(!HeldMeetingTitles.canAnswer("Re\u{0}x") && HeldMeetingTitles.canAnswer("Review"))
        for text in ["Re\u{0}x", "w\u{0}", "\u{0}"] {
            let held = Set(try await catalog.meetings(MeetingQuery(visibleTo: f.alice)).map(\.id))
            let admins = try await catalog.meetings(MeetingQuery(titleContains: text)).map(\.id).filter(held.contains)
            #expect(try await catalog.meetings(MeetingQuery(titleContains: text, visibleTo: f.alice)).map(\.id) == admins, "\(text.debugDescription)")
        }
    }

    @Test func heldTitlesAnswerForTheirPositions() {
        let titles = HeldMeetingTitles(["Weekly Standup", "", "Café crème", "100% done", "stand\u{0}up"])
        #expect(titles.count == 5)
        #expect(titles.positions(containing: "STAND", among: 0..<5) == [0, 4])
        #expect(titles.positions(containing: "standup", among: 0..<5) == [0], "a NUL ends a title")
        #expect(titles.positions(containing: "up", among: 0..<5) == [0], "nothing after a title's NUL is read")
        #expect(titles.positions(containing: "CAFÉ", among: 0..<5) == [], "letters beyond ASCII compare exactly")
        #expect(titles.positions(containing: "% d", among: [3, 2, 9]) == [3], "positions beyond the titles are none")
        #expect(titles.positions(containing: "", among: 1..<3) == [1, 2])
    }

    @Test func heldPeopleFoldAddressesAsTheCatalogComparesThem() {
        let keys = [MeetingKey(start: 10, id: 7), MeetingKey(start: 20, id: 3), MeetingKey(start: 30, id: 9)]
        let rows: [(meetingID: Int64, email: String)] = [
            (9, "bob@example.com"), (7, "Bob@Example.com"), (3, "ana@example.com"), (3, "zoë@example.com"), (5, "bob@example.com"),
            (7, "bob@example.com"),
        ]
        let people = HeldMeetingPeople(keys: keys, rows: rows, fold: HeldMeetingPeople.asciiCaseFolded)
        #expect(people.positions(of: "BOB@example.com") == [0, 2], "in key order, each once, meetings not held left out")
        #expect(people.positions(of: "zoë@example.com") == [1])
        #expect(people.positions(of: "ZOË@example.com") == [], "NOCASE folds ASCII letters only")
        #expect(people.positions(of: "nobody@example.com") == [])
        #expect(MemberPageCandidates.meetings(keys, at: [0, 2], for: MeetingQuery(newestFirst: true)) == [9, 7])
        let afterFirst = MeetingQuery(after: MeetingPosition(startMilliseconds: 10, id: 7))
        #expect(MemberPageCandidates.meetings(keys, at: [0, 2], for: afterFirst) == [9])
    }

    /// Once a member's people and titles are held, their next `--with` and `--title`
    /// candidates come from memory alone: asked of a database with no tables at all, they are
    /// still answered, and they equal what the catalog's own tests give.
    @Test func aMembersNextWithAndTitlePagesReadNothingToFindTheirCandidates() async throws {
        let temporary = TemporaryCatalog()
        let catalog = try await temporary.open()
        let f = try await MeetingFixture.make(catalog)
        try await f.linkAll()
        let generation = catalog.visibleSetsGeneration
        let queries = [
            MeetingQuery(withEmail: "BOB@example.com", visibleTo: f.alice), MeetingQuery(withEmail: "carol@example.com", visibleTo: f.alice),
            MeetingQuery(titleContains: "review", visibleTo: f.alice), MeetingQuery(titleContains: "absent", visibleTo: f.alice),
            MeetingQuery(withEmail: "alice@example.com", titleContains: "Q", visibleTo: f.alice, newestFirst: true),
            MeetingQuery(recorded: true, visibleTo: f.alice), MeetingQuery(recorded: false, visibleTo: f.alice, newestFirst: true),
            MeetingQuery(withEmail: "bob@example.com", titleContains: "review", recorded: true, visibleTo: f.alice),
        ]
        let (keys, expected) = try await catalog.writer.read { db in
            let keys = try catalog.visibleMeetingKeys(db, of: f.alice, generation: generation)
            #expect(keys.count == 4)
            return (keys, try queries.map { try catalog.memberCandidates(db, of: f.alice, keys: keys, generation: generation, for: $0) })
        }
        for (query, candidates) in zip(queries, expected) {
            var admins = query
            admins.visibleTo = nil
            let listed = try await catalog.meetings(admins).map(\.id)
            #expect(candidates.ids == listed.filter(Set(keys.map(\.id)).contains), "\(query)")
            #expect(candidates.haveAddress == (query.withEmail != nil) && candidates.haveTitle == (query.titleContains != nil))
            #expect(candidates.haveRecorded == (query.recorded != nil))
        }
        let empty = try DatabaseQueue()
        let again = try await empty.read { db in
            try queries.map { try catalog.memberCandidates(db, of: f.alice, keys: keys, generation: generation, for: $0).ids }
        }
        #expect(again == expected.map(\.ids))
    }

    /// A member whose meetings name more people than are indexed for so few meetings holds a
    /// marker instead (read once per catalog state), and their `--with` pages test the address
    /// in the catalog: the answers stay the admin's filtered listing's.
    @Test(arguments: StoreBackend.available)
    func aMemberWithTooManyPeopleHoldsNoneAndStillAnswers(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let store = opened.store
        let solo = try await store.addUser(UserDraft(name: "solo", emails: ["solo@example.com"])).id
        let account = try await store.addAccount(CalendarAccountDraft(provider: .ics, ownerID: solo, displayName: "solo"), now: Date())
        let crowd = (0..<40).map { Attendee(email: "guest\($0)@example.com", response: .accepted) }
        let town = MeetingFixture.occurrence("town-hall", calendar: "solo", title: "Town hall", at: 10, organizer: "solo@example.com", attendees: crowd)
        _ = try await store.applyCalendarChanges(
            CalendarChangeSet(
                calendar: CalendarDescriptor(remoteID: "cal", name: "Solo"), scope: .incremental,
                updatedResources: [ResourceUpdate(resource: "town-hall", occurrences: [town])]),
            accountID: account.id, now: Date())
        let keys = [MeetingKey(start: 0, id: 1)]
        #expect(HeldMeetingPeople.rowLimit(for: keys) == 32, "41 rows are more than a single meeting's limit")
        #expect(!MemberPageCandidates.narrowed(keys, for: MeetingQuery(withEmail: "a@b"), people: .tooMany(fold: { $0 })).haveAddress)
        for email in ["guest7@example.com", "GUEST39@example.com", "solo@example.com", "nobody@example.com"] {
            let admins = try await store.meetings(MeetingQuery(withEmail: email)).map(\.id)
            for _ in 0..<2 {
                #expect(try await store.meetings(MeetingQuery(withEmail: email, visibleTo: solo)).map(\.id) == admins, "\(email)")
            }
        }
    }

    @Test func aHeldPeopleAndTitlesStatementReadsEachMeetingByItsKey() async throws {
        let temporary = TemporaryCatalog()
        let catalog = try await temporary.open()
        try await catalog.writer.read { db in
            for sql in [
                SQLiteCatalog.heldMeetingPeopleStatement, SQLiteCatalog.heldMeetingTitlesStatement, SQLiteCatalog.heldMeetingRecordingsStatement,
            ] {
                let arguments: StatementArguments = sql.contains("?2") ? ["[1,2]", 10] : ["[1,2]"]
                let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments).map { $0["detail"] as String }
                #expect(plan.count == 2 && plan[0].hasPrefix("SCAN j") && plan[1].hasPrefix("SEARCH"), "\(plan)")
            }
        }
    }
}
