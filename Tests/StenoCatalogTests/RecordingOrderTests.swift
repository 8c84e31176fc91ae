import Foundation
import StenoCore
import Testing

@testable import StenoCatalog
@testable import StenoSQLite

/// `steno recordings` in every order, on every backend: each page continues exactly where the
/// last stopped, ties go by id, recordings without a start or a length take their documented
/// place, and a member's pages hold only what they may see, in the same order.
@Suite("Recordings in order")
struct RecordingOrderTests {
    /// What one generated recording was given, to compute the expected order independently.
    struct Given {
        var id: Int64
        var owner: Int64
        var recorded: Int64?
        var ingested: Int64
        var length: Double?
    }

    static let base: Int64 = 1_764_000_000_000

    /// 45 recordings of two owners: starts out of id order with ties, some files unreadable
    /// (no start, no length), lengths with ties.
    static func make(_ store: any CatalogStore & IngestStore) async throws -> (alice: Int64, bob: Int64, given: [Given]) {
        let alice = try await store.addUser(UserDraft(name: "alice", emails: ["alice@example.com"])).id
        let bob = try await store.addUser(UserDraft(name: "bob", emails: ["bob@example.com"])).id
        var given: [Given] = []
        for index in 0..<45 {
            let owner = index % 3 == 0 ? bob : alice
            let folder = owner == alice ? "alice" : "bob"
            let unreadable = index % 11 == 4
            // Starts run backwards against ids in blocks, with every fifth one sharing a start.
            let recorded = unreadable ? nil : base + Int64((index * 7919) % 50) * 60_000
            let length = unreadable ? nil : Double((index * 31) % 9) * 1.5
            let ingested = base + Int64(index % 20) * 1_000
            let metadata = RecordingMetadata(
                format: "wav", codec: "pcm_s16le", duration: length ?? 0,
                recordedAt: recorded.map { Date(timeIntervalSince1970: Double($0) / 1000) }, recordedAtSource: .sidecar)
            let record = IngestRecord(
                path: "\(folder)/r\(index).wav", size: 100, modified: Date(timeIntervalSince1970: 1_764_000_000), contentHash: "h\(index)",
                ownerID: owner, outcome: unreadable ? .failed(reason: "not audio") : .ready(metadata),
                now: Date(timeIntervalSince1970: Double(ingested) / 1000))
            let id = try await store.recordIngest(record).id
            given.append(Given(id: id, owner: owner, recorded: recorded, ingested: ingested, length: length))
        }
        return (alice, bob, given)
    }

    /// The ids of `given` in `order`, computed from what each was given.
    static func expected(_ given: [Given], _ order: RecordingOrder) -> [Int64] {
        func key(_ item: Given) -> Double {
            switch order.sort {
            case .recorded: Double(item.recorded ?? item.ingested)
            case .ingested: Double(item.ingested)
            case .id: Double(item.id)
            case .length: item.length ?? 0
            }
        }
        let ascending = given.sorted { (key($0), $0.id) < (key($1), $1.id) }.map(\.id)
        return order.descending ? ascending.reversed() : ascending
    }

    /// Every page of `query` in pages of `size`, each continuing after the last row of the one before.
    static func paged(_ store: any CatalogStore, _ query: RecordingQuery, size: Int) async throws -> [Int64] {
        var query = query
        query.limit = size
        var ids: [Int64] = []
        for _ in 0..<100 {
            let page = try await store.recordings(query)
            ids += page.map(\.id)
            guard page.count == size, let last = page.last else { return ids }
            if query.order == .byID { query.afterID = last.id } else { query.after = query.order.position(after: last) }
        }
        Issue.record("more than 100 pages")
        return ids
    }

    static var orders: [RecordingOrder] {
        RecordingSort.allCases.flatMap { [RecordingOrder(sort: $0, descending: true), RecordingOrder(sort: $0, descending: false)] }
    }

    @Test(arguments: StoreBackend.available)
    func everyOrderPagesLikeItsWholeList(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let store = opened.store
        let (alice, _, given) = try await Self.make(store)
        for order in Self.orders {
            let whole = try await store.recordings(RecordingQuery(order: order, limit: 1000)).map(\.id)
            #expect(whole == Self.expected(given, order), "admin, \(order)")
            for size in [1, 4, 7] {
                #expect(try await Self.paged(store, RecordingQuery(order: order), size: size) == whole, "admin, \(order), pages of \(size)")
            }
            // A member sees their own recordings only, in the same order, page after page.
            let theirs = Self.expected(given.filter { $0.owner == alice }, order)
            for size in [1, 5, 100] {
                let paged = try await Self.paged(store, RecordingQuery(order: order, visibleTo: alice), size: size)
                #expect(paged == theirs, "alice, \(order), pages of \(size)")
            }
        }
    }

    @Test(arguments: StoreBackend.available)
    func filtersAndRangesKeepTheOrder(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let store = opened.store
        let (alice, bob, given) = try await Self.make(store)
        let from = Self.base + 10 * 60_000
        let to = Self.base + 40 * 60_000
        func inRange(_ item: Given) -> Bool { item.recorded.map { $0 >= from && $0 < to } ?? false }
        for order in Self.orders {
            var query = RecordingQuery(
                from: Date(timeIntervalSince1970: Double(from) / 1000), to: Date(timeIntervalSince1970: Double(to) / 1000), order: order)
            #expect(try await Self.paged(store, query, size: 3) == Self.expected(given.filter(inRange), order), "range, \(order)")
            query.visibleTo = alice
            let alicesInRange = given.filter { inRange($0) && $0.owner == alice }
            #expect(try await Self.paged(store, query, size: 2) == Self.expected(alicesInRange, order), "alice's range, \(order)")
            let bobs = RecordingQuery(ownerID: bob, order: order)
            #expect(try await Self.paged(store, bobs, size: 4) == Self.expected(given.filter { $0.owner == bob }, order), "bob's, \(order)")
            let failed = RecordingQuery(status: .failed, order: order)
            #expect(
                try await Self.paged(store, failed, size: 2) == Self.expected(given.filter { $0.length == nil }, order), "failed, \(order)")
        }
    }

    @Test func heldOrderGivesTheCandidatesAfterAPosition() {
        let held = HeldRecordingOrder(sort: .length, keys: [
            RecordingPosition(key: 2, id: 5), RecordingPosition(key: 1, id: 9), RecordingPosition(key: 2, id: 3), RecordingPosition(key: 0, id: 1),
        ])
        #expect(held.candidates(after: nil, descending: false) == [1, 9, 3, 5])
        #expect(held.candidates(after: nil, descending: true) == [5, 3, 9, 1])
        #expect(held.candidates(after: RecordingPosition(key: 2, id: 3), descending: false) == [5])
        #expect(held.candidates(after: RecordingPosition(key: 2, id: 3), descending: true) == [9, 1])
        // A position between keys (its recording since changed or gone) continues after it all the same.
        #expect(held.candidates(after: RecordingPosition(key: 1.5, id: 0), descending: true) == [9, 1])
        #expect(held.candidates(after: RecordingPosition(key: 1.5, id: 0), descending: false) == [3, 5])
    }
}
