import Foundation
import GRDB
import Testing

@testable import StenoCatalog
@testable import StenoSQLite

/// `steno_held(:held, id)`: a member's sorted ids bound to a statement for the time of one read.
@Suite("Held ids in SQLite statements")
struct HeldIDsTests {
    static let candidates = "SELECT value FROM json_each(:values) WHERE steno_held(:held, value) ORDER BY value"

    /// The values of `values` that `held` holds, through the statement above.
    func heldValues(_ db: Database, _ values: [Int64], held: [Int64]) throws -> [Int64] {
        let statement = try db.cachedStatement(sql: Self.candidates)
        return try SQLiteCatalog.rows(of: statement, ["values": SQLiteCatalog.jsonArray(values)], held: held).map { $0[0] }
    }

    @Test func heldIdsAreFoundByBinarySearch() async throws {
        let temporary = TemporaryCatalog()
        let catalog = try await temporary.open()
        let values: [Int64] = [-5, 0, 1, 2, 3, 7, 8, 9, 100, Int64.max, Int64.min]
        // Every size and position, against a set.
        var generator = SystemRandomNumberGenerator()
        var cases: [(asked: [Int64], held: [Int64])] = [(values, []), (values, [1]), (values, [Int64.min, 2, 8, Int64.max]), (values, [4, 5, 6, 101])]
        for _ in 0..<200 {
            let held = Set((0..<Int.random(in: 0...40, using: &generator)).map { _ in Int64.random(in: -50...50, using: &generator) })
            cases.append(((0..<30).map { _ in Int64.random(in: -60...60, using: &generator) }, held.sorted()))
        }
        let asked = cases
        let found = try await catalog.writer.read { db in try asked.map { try heldValues(db, $0.asked, held: $0.held) } }
        for (index, (asked, held)) in cases.enumerated() {
            #expect(found[index] == asked.filter(Set(held).contains).sorted(), "\(asked) among \(held)")
        }
    }

    /// Text and reals are never held, and without ids bound the function holds nothing: the
    /// cached statement is left without the caller's ids once the read is over.
    @Test func onlyBoundIntegersAreHeld() async throws {
        let temporary = TemporaryCatalog()
        let catalog = try await temporary.open()
        let (bound, afterwards, unbound) = try await catalog.writer.read { db in
            let statement = try db.cachedStatement(sql: "SELECT count(*) FROM json_each('[1, \"1\", 1.0, null]') WHERE steno_held(:held, value)")
            let bound = try SQLiteCatalog.rows(of: statement, [], held: [1]).map { $0[0] as Int }
            return (bound, try Int.fetchOne(statement), try Int.fetchOne(db, sql: "SELECT steno_held(NULL, 1) + steno_held('[1]', 1)"))
        }
        #expect(bound == [1])
        #expect(afterwards == 0)
        #expect(unbound == 0)
    }

    /// The function cannot be reached from the schema (a view or trigger someone could write
    /// into the catalog file).
    @Test func theSchemaCannotCallIt() async throws {
        let temporary = TemporaryCatalog()
        let catalog = try await temporary.open()
        try await catalog.writer.write { db in
            try db.execute(sql: "CREATE VIEW held_view AS SELECT steno_held(NULL, 1) AS held")
        }
        let error = await #expect(throws: DatabaseError.self) {
            try await catalog.writer.read { db in try Int.fetchOne(db, sql: "SELECT held FROM held_view") }
        }
        #expect(error?.message?.contains("unsafe use of steno_held") == true, "\(String(describing: error))")
    }
}
