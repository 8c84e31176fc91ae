import Foundation
import GRDB
import StenoCore
import Testing

@testable import StenoCatalog
@testable import StenoSQLite

/// The query plans of SQLite's listings and searches, as an admin and as a member: every
/// table is read through an index (or, for search, the full-text index), none scanned whole
/// and none given an automatic index built for one statement. At a million meetings a full
/// scan is seconds; here it is a plan, checked without timing anything.
@Suite("Query plans of listings")
struct ListingPlanTests {
    static let june = Date(timeIntervalSince1970: 1_780_272_000)

    /// Meeting listings with each filter, first pages and pages after a position.
    static let meetingQueries: [(String, MeetingQuery)] = [
        ("everything", MeetingQuery()),
        ("range", MeetingQuery(from: june, to: june.addingTimeInterval(7 * 86_400))),
        ("with", MeetingQuery(withEmail: "bob@example.com")),
        ("title", MeetingQuery(titleContains: "standup")),
        ("recorded", MeetingQuery(recorded: true)),
        ("unrecorded", MeetingQuery(recorded: false)),
        ("after", MeetingQuery(after: MeetingPosition(startMilliseconds: 1_780_272_000_000, id: 7))),
        ("after no start", MeetingQuery(after: MeetingPosition(startMilliseconds: nil, id: 7))),
        ("newest first", MeetingQuery(newestFirst: true)),
        ("newest first after", MeetingQuery(newestFirst: true, after: MeetingPosition(startMilliseconds: 1_780_272_000_000, id: 7))),
        ("newest first after no start", MeetingQuery(newestFirst: true, after: MeetingPosition(startMilliseconds: nil, id: 7))),
        ("without gone", MeetingQuery(hideGone: true)),
        ("with a name", MeetingQuery(withAny: [.name("bob")])),
        ("with a domain", MeetingQuery(withAny: [.domain("corp.example")])),
        ("with any", MeetingQuery(withAny: [.email("bob@example.com"), .name("carol"), .domain("corp.example")])),
    ]

    /// The plan's lines that read a table whole or build a throwaway index.
    static func fullScans(_ db: Database, _ sql: String, _ arguments: StatementArguments) throws -> [String] {
        let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments).map { $0["detail"] as String }
        return plan.filter { detail in
            // "SCAN m USING INDEX meetings_start" walks the listing's own order (stopped by
            // LIMIT); "SCAN t" alone is every row, and an automatic index is built from every row.
            // "SCAN viewer" reads the one-row CTE holding a member's id.
            (detail.hasPrefix("SCAN ") && !detail.contains(" USING ") && !detail.contains("VIRTUAL TABLE") && !detail.contains("json_each")
                && !detail.hasPrefix("SCAN (") && !detail.hasPrefix("SCAN CONSTANT") && detail != "SCAN viewer")
                || detail.contains("AUTOMATIC")
        }
    }

    /// Each meeting listing's name beside the lines of its query plan.
    static func meetingPlans(_ queries: [(String, MeetingQuery)], in catalog: SQLiteCatalog) async throws -> [(String, [String])] {
        try await catalog.writer.read { db in
            try queries.map { name, query in
                let (sql, arguments) = SQLiteCatalog.meetingListing(query)
                return (name, try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments).map { $0["detail"] as String })
            }
        }
    }

    @Test func meetingListingsReadOnlyThroughIndexes() async throws {
        let temporary = TemporaryCatalog()
        let catalog = try await temporary.open()
        let scans = try await catalog.writer.read { db in
            var scans: [String: [String]] = [:]
            for viewer in [nil, 3] as [Int64?] {
                for (name, query) in Self.meetingQueries {
                    var query = query
                    query.visibleTo = viewer
                    let (sql, arguments) = SQLiteCatalog.meetingListing(query)
                    scans["\(name) as \(viewer == nil ? "admin" : "member")"] = try Self.fullScans(db, sql, arguments)
                }
            }
            return scans
        }
        #expect(scans.count == Self.meetingQueries.count * 2)
        for (name, lines) in scans { #expect(lines == [], "\(name)") }
    }

    /// A `--with` page walks the address's rows of `meeting_people` in the listing's order and
    /// stops at the page's end, the other filters tested on the rows walked: no set of the
    /// address's meetings gathered from the events first (20,000 ids on every page at a
    /// million meetings), no sort.
    @Test func withPagesWalkTheAddressesRowsInTheirOrder() async throws {
        let temporary = TemporaryCatalog()
        let catalog = try await temporary.open()
        let position = MeetingPosition(startMilliseconds: 1_780_272_000_000, id: 7)
        let queries: [(String, MeetingQuery)] = [
            ("first page", MeetingQuery(withEmail: "bob@example.com")),
            ("newest first", MeetingQuery(withEmail: "bob@example.com", newestFirst: true)),
            ("after", MeetingQuery(withEmail: "bob@example.com", after: position)),
            ("after no start", MeetingQuery(withEmail: "bob@example.com", after: MeetingPosition(startMilliseconds: nil, id: 7))),
            ("newest first after", MeetingQuery(withEmail: "bob@example.com", newestFirst: true, after: position)),
            ("range", MeetingQuery(from: Self.june, to: Self.june.addingTimeInterval(7 * 86_400), withEmail: "bob@example.com")),
            ("filters", MeetingQuery(withEmail: "bob@example.com", titleContains: "review", recorded: true, hideGone: true, newestFirst: true)),
            // What `steno meetings --with bob@example.com` sends: one address among `withAny`.
            ("one address as steno sends it", MeetingQuery(newestFirst: true, withAny: [.email("bob@example.com")])),
        ]
        for (name, plan) in try await Self.meetingPlans(queries, in: catalog) {
            let shown = "\(name):\n" + plan.joined(separator: "\n")
            #expect(plan.first?.hasPrefix("SEARCH p USING COVERING INDEX meeting_people_walk (email=?") == true, "\(shown)")
            #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(shown)")
            #expect(!plan.contains { $0.contains("LIST SUBQUERY") || $0.contains("event_attendees") }, "\(shown)")
        }
    }

    /// A `--with` page reads no meeting row unless a title is asked for, and tests whether a
    /// meeting still has a live event from the events' meeting index alone: at a million
    /// meetings those lookups were three quarters of the statement listing 20,000 meetings.
    @Test func withPagesReadOnlyIndexesUnlessATitleIsAsked() async throws {
        let temporary = TemporaryCatalog()
        let catalog = try await temporary.open()
        let queries: [(String, MeetingQuery)] = [
            ("hiding gone", MeetingQuery(withEmail: "bob@example.com", hideGone: true, newestFirst: true)),
            ("recorded", MeetingQuery(withEmail: "bob@example.com", recorded: true, hideGone: true)),
            ("with a name too", MeetingQuery(withEmail: "bob@example.com", hideGone: true, withAny: [.name("carol")])),
        ]
        for (name, plan) in try await Self.meetingPlans(queries, in: catalog) {
            let shown = "\(name):\n" + plan.joined(separator: "\n")
            #expect(!plan.contains { $0.contains("SEARCH m ") }, "\(shown)")
            #expect(plan.contains { $0.contains("SEARCH e USING COVERING INDEX events_meeting (meeting_id=? AND deleted_at=?)") }, "\(shown)")
        }
        let titled = try await Self.meetingPlans([("title", MeetingQuery(withEmail: "bob@example.com", titleContains: "review"))], in: catalog)
        #expect(titled.first?.1.contains { $0.hasPrefix("SEARCH m USING INTEGER PRIMARY KEY") } == true, "\(titled)")
    }

    /// A `--title` page whose text many titles hold (no trigram candidates) walks the
    /// meetings by start testing each title from the index itself: at a million meetings a
    /// text held by one title in a hundred walks ten thousand rows for a page of a hundred,
    /// and looking each row up in the table cost most of the page.
    @Test func denseTitlePagesReadTitlesFromTheStartIndex() async throws {
        let temporary = TemporaryCatalog()
        let catalog = try await temporary.open()
        let position = MeetingPosition(startMilliseconds: 1_780_272_000_000, id: 7)
        let queries: [(String, MeetingQuery)] = [
            ("first page", MeetingQuery(titleContains: "Meeting 42")),
            ("newest first", MeetingQuery(titleContains: "Meeting 42", newestFirst: true)),
            ("after", MeetingQuery(titleContains: "Meeting 42", after: position)),
            ("range", MeetingQuery(from: Self.june, to: Self.june.addingTimeInterval(7 * 86_400), titleContains: "Meeting 42")),
        ]
        for (name, plan) in try await Self.meetingPlans(queries, in: catalog) {
            let shown = "\(name):\n" + plan.joined(separator: "\n")
            #expect(plan.first?.contains("m USING COVERING INDEX meetings_start") == true, "\(shown)")
            #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(shown)")
        }
    }

    /// A member's meetings named by their emails come from `meeting_people`, one range per
    /// email, not from every event and attendee row of each address (read once per catalog
    /// change into the member's held set, which their pages then read).
    @Test func aMembersMeetingsByEmailAreReadFromTheAddressesRows() async throws {
        let temporary = TemporaryCatalog()
        let catalog = try await temporary.open()
        let plans = try await catalog.writer.read { db in
            try [SQLiteCatalog.visibleMeetingKeysStatement, CatalogSQL.visibleRecordingIDs(of: ":v")].map { sql in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: ["v": 3]).map { $0["detail"] as String }
            }
        }
        for plan in plans {
            let shown = plan.joined(separator: "\n")
            #expect(plan.contains { $0.contains("SEARCH p USING COVERING INDEX meeting_people_walk (email=?)") }, "\(shown)")
            #expect(!plan.contains { $0.contains("event_attendees") || $0.contains("events_organizer") }, "\(shown)")
        }
    }

    /// The sets of ids a listing reads through `IN (…)` (a member's meetings and recordings,
    /// `--with`'s meetings) are not deduplicated a second time: `IN` drops repeats itself, and a
    /// `UNION` sorted every id once more into its own b-tree on each page.
    @Test func idSetsAreNotDeduplicatedTwice() async throws {
        let temporary = TemporaryCatalog()
        let catalog = try await temporary.open()
        let unions = try await catalog.writer.read { db in
            var unions: [String: [String]] = [:]
            func check(_ name: String, _ sql: String, _ arguments: StatementArguments) throws {
                let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments).map { $0["detail"] as String }
                unions[name] = plan.filter { $0.contains("UNION USING TEMP B-TREE") }
            }
            for viewer in [nil, 3] as [Int64?] {
                let who = viewer == nil ? "admin" : "member"
                for (name, query) in Self.meetingQueries {
                    var query = query
                    query.visibleTo = viewer
                    let (sql, arguments) = SQLiteCatalog.meetingListing(query)
                    try check("meetings \(name) as \(who)", sql, arguments)
                }
                var recordings = RecordingQuery()
                recordings.visibleTo = viewer
                let (sql, arguments) = SQLiteCatalog.recordingListing(recordings)
                try check("recordings as \(who)", sql, arguments)
            }
            return unions
        }
        #expect(unions.count == (Self.meetingQueries.count + 1) * 2)
        for (name, lines) in unions { #expect(lines == [], "\(name)") }
    }

    @Test func searchesReadOnlyThroughIndexes() async throws {
        let temporary = TemporaryCatalog()
        let catalog = try await temporary.open()
        let scans = try await catalog.writer.read { db in
            var scans: [String: [String]] = [:]
            for viewer in [nil, 3] as [Int64?] {
                let arguments: StatementArguments = ["match": "\"standup\"*", "held": nil, "limit": 101, "candidates": 500]
                let who = viewer == nil ? "admin" : "member"
                scans["meetings as \(who)"] = try Self.fullScans(db, SQLiteCatalog.meetingSearch(forMember: viewer != nil), arguments)
                scans["recordings as \(who)"] = try Self.fullScans(db, SQLiteCatalog.recordingSearch(forMember: viewer != nil), arguments)
            }
            return scans
        }
        #expect(scans.count == 4)
        for (name, lines) in scans { #expect(lines == [], "\(name)") }
    }

    /// Recording listings with each filter, first pages and pages after a recording.
    static let recordingQueries: [(String, RecordingQuery)] = [
        ("everything", RecordingQuery()),
        ("owner", RecordingQuery(ownerID: 2)),
        ("status", RecordingQuery(status: .failed)),
        ("warnings", RecordingQuery(withWarnings: true)),
        ("range", RecordingQuery(from: june, to: june.addingTimeInterval(7 * 86_400))),
        ("after", RecordingQuery(afterID: 7)),
    ]

    /// A recordings page reads whole rows for its own recordings only: the filters pick the
    /// page's ids from indexes alone (covering, or the table in id order stopped by LIMIT).
    /// Read whole through a secondary index, a time range loaded and sorted every recording in
    /// it for each page of an `--all`.
    @Test func recordingPagesReadWholeRowsOnlyForThePage() async throws {
        let temporary = TemporaryCatalog()
        let catalog = try await temporary.open()
        let reads = try await catalog.writer.read { db in
            var reads: [String: [String]] = [:]
            for viewer in [nil, 3] as [Int64?] {
                for (name, query) in Self.recordingQueries {
                    var query = query
                    query.visibleTo = viewer
                    let (sql, arguments) = SQLiteCatalog.recordingListing(query)
                    let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments).map { $0["detail"] as String }
                    reads["\(name) as \(viewer == nil ? "admin" : "member")"] = plan.filter {
                        $0.hasPrefix("SEARCH r USING INDEX ") || $0.hasPrefix("SCAN r USING INDEX ")
                    }
                }
            }
            return reads
        }
        #expect(reads.count == Self.recordingQueries.count * 2)
        for (name, lines) in reads { #expect(lines == [], "\(name)") }
    }

    /// An admin's recordings page first walks the ids just after its cursor: nothing sorted.
    /// Through a filter's index (a range, an owner, a status), each page of an `--all` read
    /// and sorted every id the filter matches to keep a thousand. The page's rest, after
    /// that window, is still read through the indexes.
    @Test func adminsRecordingPagesWalkIdsAfterTheCursorUnsorted() async throws {
        let temporary = TemporaryCatalog()
        let catalog = try await temporary.open()
        let plans = try await catalog.writer.read { db in
            var plans: [String: (window: [String], beyond: [String])] = [:]
            for (name, query) in Self.recordingQueries {
                let (sql, arguments) = SQLiteCatalog.recordingListing(query)
                let window = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments).map { $0["detail"] as String }
                let (beyondSQL, beyondArguments) = SQLiteCatalog.recordingListing(query, throughIndexes: true)
                plans[name] = (window, try Self.fullScans(db, beyondSQL, beyondArguments))
            }
            return plans
        }
        #expect(plans.count == Self.recordingQueries.count)
        for (name, plan) in plans {
            #expect(!plan.window.contains { $0.contains("TEMP B-TREE") || $0.contains(" INDEX ") }, "\(name): \(plan.window)")
            #expect(plan.beyond == [], "\(name) after the window")
        }
    }

    /// A page in another order than by id walks that order's index from its position (nothing
    /// sorted, nothing scanned), with a filter or without; a range of starts walks the range's
    /// own index in the order of starts. A member's chunk is read by id and sorted (it is small).
    /// Sorting what a filter's index matches, each page of `--status ready` sorted every recording.
    @Test func orderedRecordingPagesWalkTheirOrdersIndex() async throws {
        let temporary = TemporaryCatalog()
        let catalog = try await temporary.open()
        let plans = try await catalog.writer.read { db in
            var plans: [String: [String]] = [:]
            for sort in RecordingSort.allCases {
                for descending in [true, false] {
                    let order = RecordingOrder(sort: sort, descending: descending)
                    guard order != .byID else { continue }
                    for (name, query) in Self.recordingQueries {
                        for after in [nil, RecordingPosition(key: 1_780_272_000_000, id: 7)] {
                            var query = query
                            query.order = order
                            query.after = after
                            let (sql, arguments) = SQLiteCatalog.orderedRecordingListing(query)
                            let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments).map { $0["detail"] as String }
                            let label = "\(sort.rawValue)\(descending ? " descending" : "") \(name)\(after == nil ? "" : " after")"
                            // A range of starts in another order is read through the range's index and sorted
                            // (ranges asked for are narrow beside the catalog); by id, the table is walked in its order.
                            let sorts = query.from == nil || sort == .recorded ? plan.filter { $0.contains("TEMP B-TREE") } : []
                            let scans = try Self.fullScans(db, sql, arguments).filter { sort != .id || $0 != "SCAN r" }
                            plans[label] = sorts + scans
                            let (memberSQL, memberArguments) = SQLiteCatalog.orderedRecordingListing(query, among: [1, 2, 3])
                            plans[label + " as member"] = try Self.fullScans(db, memberSQL, memberArguments)
                        }
                    }
                }
            }
            return plans
        }
        #expect(plans.count == (RecordingSort.allCases.count * 2 - 1) * Self.recordingQueries.count * 4)
        for (name, lines) in plans.sorted(by: { $0.key < $1.key }) { #expect(lines == [], "\(name)") }
    }

    /// A member's held order reads each visible recording's key by its id.
    @Test func aMembersHeldOrderReadsByID() async throws {
        let temporary = TemporaryCatalog()
        let catalog = try await temporary.open()
        let scans = try await catalog.writer.read { db in
            try RecordingSort.allCases.flatMap { try Self.fullScans(db, SQLiteCatalog.recordingKeysStatement($0), ["[1,2]"]) }
        }
        #expect(scans == [])
    }

    @Test func recordingAndLinkListingsReadOnlyThroughIndexes() async throws {
        let temporary = TemporaryCatalog()
        let catalog = try await temporary.open()
        let scans = try await catalog.writer.read { db in
            var scans: [String: [String]] = [:]
            for viewer in [nil, 3] as [Int64?] {
                let who = viewer == nil ? "admin" : "member"
                for (name, query) in Self.recordingQueries {
                    var query = query
                    query.visibleTo = viewer
                    let (sql, arguments) = SQLiteCatalog.recordingListing(query)
                    scans["recordings \(name) as \(who)"] = try Self.fullScans(db, sql, arguments)
                }
                for state in [nil, LinkState.linked] {
                    scans["links \(state?.rawValue ?? "any") as \(who)"] = try Self.fullScans(
                        db, SQLiteCatalog.linkListing(forMember: viewer != nil), [7, state?.rawValue, viewer, 101])
                }
            }
            return scans
        }
        #expect(scans.count == (Self.recordingQueries.count + 2) * 2)
        for (name, lines) in scans { #expect(lines == [], "\(name)") }
    }

    /// A member's page is read among the meetings (or recordings) of their set that it may
    /// hold, given by id: the statement of each page never builds the set again through the
    /// tables that make it (calendars by owner, emails by user), which cost more than a page
    /// of a few thousand visible meetings, and walking every meeting of a range testing each
    /// against the set read ten thousand index rows for a member's page of fifty.
    @Test func membersPagesDoNotBuildTheirVisibleSet() async throws {
        let temporary = TemporaryCatalog()
        let catalog = try await temporary.open()
        let reads = try await catalog.writer.read { db in
            var reads: [String: [String]] = [:]
            func check(_ name: String, _ sql: String, _ arguments: StatementArguments) throws {
                let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments).map { $0["detail"] as String }
                reads[name] = plan.filter { $0.contains("user_emails") || $0.contains("calendar_accounts") }
                #expect(!plan.contains { $0.contains("meetings_start") }, "\(name) walks the meetings by start: \(plan)")
            }
            for (name, query) in Self.meetingQueries {
                var query = query
                query.visibleTo = 3
                let (sql, arguments) = SQLiteCatalog.meetingListing(query)
                try check("meetings \(name)", sql, arguments)
            }
            for (name, query) in Self.recordingQueries {
                var query = query
                query.visibleTo = 3
                let (sql, arguments) = SQLiteCatalog.recordingListing(query)
                try check("recordings \(name)", sql, arguments)
            }
            try check(
                "search", SQLiteCatalog.meetingSearch(forMember: true),
                ["match": "\"standup\"*", "v": 3, "held": nil, "limit": 101, "candidates": 500])
            return reads
        }
        #expect(reads.count == Self.meetingQueries.count + Self.recordingQueries.count + 1)
        for (name, lines) in reads { #expect(lines == [], "\(name)") }
    }

    /// A member's `--with` page whose people are not held (too many meetings or rows) hands
    /// its statement only the held meetings of the address when the address's rows are few
    /// beside the held set (walked in one index range,
    /// covering), and the held meetings to test one by one when they are many: testing each of
    /// a few thousand held meetings by key cost a page more than walking a small address.
    @Test func aMembersWithPageReadsTheCheaperSide() async throws {
        let temporary = TemporaryCatalog()
        let catalog = try await temporary.open()
        let f = try await MeetingFixture.make(catalog)
        try await f.linkAll()
        let generation = catalog.visibleSetsGeneration
        let alicesOwn = try #require(f.meetings["q1"])
        let focus = try #require(f.meetings["private"])
        try await catalog.writer.read { db in
            let plan = try Row.fetchAll(
                db, sql: "EXPLAIN QUERY PLAN " + SQLiteCatalog.addressMeetingsStatement, arguments: ["email": "bob@example.com", "limit": 9]
            ).map { $0["detail"] as String }
            #expect(plan == ["SEARCH meeting_people USING COVERING INDEX meeting_people_walk (email=?)"], "\(plan)")

            // Alice holds four meetings; bob is on one of them (and on carol's 1:1).
            let alices = try catalog.visibleMeetingKeys(db, of: f.alice, generation: generation)
            #expect(alices.count == 4)
            let ascending = MemberPageCandidates.meetings(alices, for: MeetingQuery())
            let bobs = try SQLiteCatalog.addressCandidates(db, among: ascending, withEmail: "BOB@example.com")
            #expect(bobs.ids == [alicesOwn] && bobs.haveAddress)
            let descending = MemberPageCandidates.meetings(alices, for: MeetingQuery(newestFirst: true))
            let newestFirst = try SQLiteCatalog.addressCandidates(db, among: descending, withEmail: "alice@example.com")
            #expect(newestFirst.ids == descending && newestFirst.haveAddress)

            // Dave holds one meeting; carol's two rows are more than one per held meeting.
            let daves = try catalog.visibleMeetingKeys(db, of: f.dave, generation: generation)
            let carols = try SQLiteCatalog.addressCandidates(
                db, among: MemberPageCandidates.meetings(daves, for: MeetingQuery()), withEmail: "carol@example.com", addressRowsPerCandidate: 1)
            #expect(carols.ids == [focus] && !carols.haveAddress)
        }
    }
}
