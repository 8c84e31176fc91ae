import Foundation
import GRDB
import StenoAPI
import StenoCore
import StenoService

/// One question of `steno-bench query`: a method call (a first page, or every page as
/// `--all` follows the cursors) and the plain SQLite statement reading the same rows.
struct QueryCase: Sendable {
    /// What the floor reads for the rows a call returned.
    enum Floor: Sendable {
        /// Meeting rows by id with what a summary shows: title, times, the latest event's
        /// organizer, place, status and all-day dates, its attendee count and linked recordings.
        case meetings
        /// Recording rows by id with their owner's name and their paths.
        case recordings
        /// Link rows by recording id with their recordings, owners and meetings.
        case links
        /// A meeting's organizer and attendee rows from its live events.
        case attendees(meeting: Int64)
        /// A meeting, its organizer and attendee rows and its links with their recordings.
        case meeting(Int64)
        /// The full-text matches of a text, unranked, as many as returned, with a hit's fields;
        /// for a member only those among their `visible` meetings and recordings.
        case search(String, visible: MemberVisibleIDs?)
    }

    var name: String
    var isFullListing: Bool
    var floor: Floor
    /// Runs the call once (every page for a full listing); returns the results as the daemon
    /// sends them, which is what is timed.
    var call: @Sendable (QueryMethodsHarness, User?) async throws -> [RPCResult]
    /// The ids of the rows the results answered, read after the timing (it parses them).
    var ids: @Sendable ([RPCResult]) throws -> [Int64]

    /// The meeting shown by `meetings show` and `attendees`.
    static let shownMeetingTitle = "Meeting 42"
    static let pageSize = PageParams.defaultLimit
    /// The first day of the ranges asked for (a week of meetings, 73 days of recordings).
    static let june = Date(timeIntervalSince1970: 1_780_272_000)
    /// The attendee of `--with`.
    static let colleague = "user7@bench.example"

    /// Every case, as one user (nil: an admin) asks it.
    static func all(
        harness: QueryMethodsHarness, member: User?, visible: MemberVisibleIDs?, users: Int
    ) async throws -> [QueryCase] {
        let june = Self.june
        let week = (from: june, to: june.addingTimeInterval(7 * 86_400))
        let colleague = Self.colleague
        // Ids seen by this user pick the meeting to show and the rare word.
        let firstMeetings = try await page(harness, StenoMethods.meetingsList, MeetingListParams(recorded: true, limit: 1), as: member)
        guard let shown = firstMeetings.first?["id"]?.intValue else { throw QueryBenchError.empty("no recorded meeting visible") }
        let firstRecordings = try await page(harness, StenoMethods.recordingsList, RecordingListParams(limit: 1), as: member)
        guard let rarePath = firstRecordings.first?["paths"]?.arrayValue?.first?["path"]?.stringValue,
            let rare = rarePath.split(separator: "/").last?.split(separator: ".").first.map(String.init)
        else { throw QueryBenchError.empty("no recording visible") }
        let meetingsList = StenoMethods.meetingsList
        var cases: [QueryCase] = []
        func meetings(_ name: String, _ params: MeetingListParams, all: Bool = false) {
            cases.append(QueryCase(name: name, isFullListing: all, floor: .meetings, call: { harness, user in
                try await pages(harness, meetingsList, params, as: user, all: all)
            }, ids: ids(key: "id")))
        }
        meetings("meetings range (a week)", MeetingListParams(from: week.from, to: week.to))
        meetings("meetings --with", MeetingListParams(with: colleague))
        meetings("meetings --title", MeetingListParams(title: "Meeting 42"))
        meetings("meetings --recorded", MeetingListParams(recorded: true))
        meetings("meetings --unrecorded", MeetingListParams(recorded: false))
        cases.append(QueryCase(name: "recordings", isFullListing: false, floor: .recordings, call: { harness, user in
            try await pages(harness, StenoMethods.recordingsList, RecordingListParams(), as: user, all: false)
        }, ids: ids(key: "id")))
        cases.append(QueryCase(name: "links --state linked", isFullListing: false, floor: .links, call: { harness, user in
            try await pages(harness, StenoMethods.linksList, LinkListParams(state: .linked), as: user, all: false)
        }, ids: ids(key: "recording")))
        cases.append(QueryCase(name: "attendees", isFullListing: false, floor: .attendees(meeting: shown), call: { harness, user in
            [try await harness.call(StenoMethods.attendeesList, AttendeeListParams(id: shown), as: user)]
        }, ids: { results in try results.flatMap { try items(of: $0).map { _ in shown } } }))
        cases.append(QueryCase(name: "meetings show", isFullListing: false, floor: .meeting(shown), call: { harness, user in
            [try await harness.call(StenoMethods.meetingsGet, MeetingIDParams(id: shown), as: user)]
        }, ids: { _ in [shown] }))
        // "42" is in one title in a hundred: the frequency where PostgreSQL's search turns from
        // walking the newest rows to reading the full-text index.
        for (label, text) in [("rare word", rare), ("1% word", "42"), ("common word", "Meeting"), ("prefix", "Meet")] {
            cases.append(QueryCase(name: "search \(label) (\(text))", isFullListing: false, floor: .search(text, visible: visible), call: { harness, user in
                try await pages(harness, StenoMethods.searchQuery, SearchParams(text: text), as: user, all: false)
            }, ids: ids(key: "id")))
        }
        meetings("meetings range --all", MeetingListParams(from: week.from, to: week.to), all: true)
        meetings("meetings --with --all", MeetingListParams(with: colleague), all: true)
        meetings("meetings --recorded --all", MeetingListParams(from: week.from, to: week.to.addingTimeInterval(21 * 86_400), recorded: true), all: true)
        cases.append(QueryCase(name: "recordings range --all", isFullListing: true, floor: .recordings, call: { harness, user in
            try await pages(harness, StenoMethods.recordingsList, RecordingListParams(from: june, to: june.addingTimeInterval(73 * 86_400)), as: user, all: true)
        }, ids: ids(key: "id")))
        cases.append(QueryCase(name: "links --state linked --all", isFullListing: true, floor: .links, call: { harness, user in
            try await pages(harness, StenoMethods.linksList, LinkListParams(state: .linked), as: user, all: true)
        }, ids: ids(key: "recording")))
        cases.append(QueryCase(name: "search rare word --all", isFullListing: true, floor: .search(rare, visible: visible), call: { harness, user in
            try await pages(harness, StenoMethods.searchQuery, SearchParams(text: rare), as: user, all: true)
        }, ids: ids(key: "id")))
        _ = users
        return cases
    }

    /// The items of one page.
    static func page<Params: Encodable & Sendable, Item>(
        _ harness: QueryMethodsHarness, _ method: RPCMethodDescriptor<Params, Page<Item>>, _ params: Params, as user: User?
    ) async throws -> [JSONValue] {
        try items(of: try await harness.call(method, params, as: user))
    }

    /// The items of a page as the daemon sent it.
    static func items(of result: RPCResult) throws -> [JSONValue] {
        try result.json()["items"]?.arrayValue ?? []
    }

    /// The first page, or every page following the cursors as `steno … --all` does (each
    /// cursor read from the end of its page's bytes).
    static func pages<Params: Encodable & Sendable & PageParamsSettable, Item>(
        _ harness: QueryMethodsHarness, _ method: RPCMethodDescriptor<Params, Page<Item>>, _ params: Params, as user: User?, all: Bool
    ) async throws -> [RPCResult] {
        var pages: [RPCResult] = []
        var params = params
        params.limit = all ? PageParams.maximumLimit : pageSize
        while true {
            let result = try await harness.call(method, params, as: user)
            pages.append(result)
            guard all, let next = try result.nextCursor else { return pages }
            params.cursor = next
        }
    }

    /// Reads the ids under `key` of every page's items.
    static func ids(key: String) -> @Sendable ([RPCResult]) throws -> [Int64] {
        { pages in try pages.flatMap { try items(of: $0).compactMap { $0[key]?.intValue } } }
    }
}

/// Params with the `cursor` and `limit` every list method takes.
protocol PageParamsSettable {
    var cursor: String? { get set }
    var limit: Int? { get set }
}

extension MeetingListParams: PageParamsSettable {}
extension RecordingListParams: PageParamsSettable {}
extension LinkListParams: PageParamsSettable {}
extension SearchParams: PageParamsSettable {}

/// Why the benchmark cannot run on a catalog.
enum QueryBenchError: Error, CustomStringConvertible {
    case empty(String)
    case failed(String)

    var description: String {
        switch self {
        case .empty(let what): return "the generated catalog has \(what): remove it to generate it again"
        case .failed(let what): return what
        }
    }
}
