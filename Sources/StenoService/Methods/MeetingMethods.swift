import Foundation
import StenoAPI
import StenoCatalog
import StenoCore

/// `meetings.*`, `attendees.*`, `search.*`: the questions people ask. Visibility is part of
/// every store query, never a filter applied afterwards.
struct MeetingMethods: Sendable {
    let store: any CatalogStore & RecordingStore
    /// Writes to calendars (`meetings.create`, `meetings.rename`); nil: this daemon cannot.
    var writeBack: CalendarWriteBack?
    var queue: JobQueue?

    func register(in table: inout RPCMethodTable) {
        registerWriteBack(in: &table)
        let store = self.store
        table.register(StenoMethods.meetingsList, access: .user) { call, params in
            let limit = try PageCursor.limit(params.limit)
            // No title or address holds a NUL (PostgreSQL cannot store one; SQLite reads a
            // pattern only up to it): refused as what it is, not failed as the server's error.
            for (name, text) in [("with", params.with), ("title", params.title)] where text?.utf8.contains(0) == true {
                throw RPCError.invalidParams("\(name) must not contain a NUL character", data: ["field": .string(name)])
            }
            let withAny = params.withAny ?? []
            guard withAny.count <= AttendeeMatch.maximumCount else {
                throw RPCError.invalidParams("at most \(AttendeeMatch.maximumCount) in withAny")
            }
            let matches = try withAny.map { text in
                guard let match = AttendeeMatch(text) else {
                    throw RPCError.invalidParams("withAny: \"\(text)\" has no letter or digit to look for")
                }
                return match
            }
            var query = MeetingQuery(
                from: params.from, to: params.to, withEmail: params.with?.lowercased(), titleContains: params.title,
                recorded: params.recorded, visibleTo: RecordingMethods.visibility(of: call.caller), hideGone: params.hideGone ?? false,
                newestFirst: params.newestFirst ?? false, limit: limit + 1, withAny: matches)
            // Pages continue after the last meeting shown (an index range), not by counting rows.
            switch try PageCursor.meetingContinuation(params.cursor) {
            case .start: break
            case .after(let position): query.after = position
            case .offset(let offset): query.offset = offset
            }
            return PageCursor.meetingPage(try await store.meetings(query), limit: limit)
        }
        table.register(StenoMethods.meetingsGet, access: .user) { call, params in
            try await store.meeting(id: params.id, visibleTo: RecordingMethods.visibility(of: call.caller))
        }
        table.register(StenoMethods.attendeesList, access: .user) { call, params in
            let limit = try PageCursor.limit(params.limit)
            let offset = try PageCursor.offset(params.cursor)
            // A meeting's attendees are bounded by the meeting; its visibility is the store's check.
            let attendees = try await store.meeting(id: params.id, visibleTo: RecordingMethods.visibility(of: call.caller)).attendees
            return PageCursor.offsetPage(Array(attendees.dropFirst(offset).prefix(limit + 1)), offset: offset, limit: limit)
        }
        table.register(StenoMethods.searchQuery, access: .user) { call, params in
            let limit = try PageCursor.limit(params.limit)
            let offset = try PageCursor.offset(params.cursor)
            guard !params.text.trimmingCharacters(in: .whitespaces).isEmpty else { throw RPCError.invalidParams("give some words to search for") }
            if let refusal = Self.refusal(ofSearch: params.text) { throw refusal }
            let hits = try await store.search(
                params.text, visibleTo: RecordingMethods.visibility(of: call.caller), offset: offset, limit: limit + 1)
            return PageCursor.offsetPage(hits, offset: offset, limit: limit)
        }
    }

    /// The error for a search text beyond the bounds, refused before any work (the cost of a
    /// query grows with the square of its words); nil when it may run.
    static func refusal(ofSearch text: String) -> RPCError? {
        do {
            _ = try SearchTerms(text)
            return nil
        } catch .noWords {
            return nil
        } catch {
            return .invalidParams(
                error.description,
                data: ["maximumBytes": .int(Int64(SearchTerms.maximumBytes)), "maximumWords": .int(Int64(SearchTerms.maximumWords))])
        }
    }
}
