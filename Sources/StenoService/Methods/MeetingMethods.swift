import Foundation
import StenoAPI
import StenoCore
import StenoStore

/// `meetings.*`, `attendees.*`, `search.*`: the questions people ask. Visibility is part of
/// every store query, never a filter applied afterwards.
struct MeetingMethods: Sendable {
    let store: any CatalogStore

    func register(in table: inout RPCMethodTable) {
        let store = self.store
        table.register(StenoMethods.meetingsList, access: .user) { call, params in
            let limit = try PageCursor.limit(params.limit)
            // The cursor holds the position in the list ordered by start.
            let offset = Int(try params.cursor.map(PageCursor.decode) ?? 0)
            let meetings = try await store.meetings(
                MeetingQuery(
                    from: params.from, to: params.to, withEmail: params.with?.lowercased(), titleContains: params.title,
                    recorded: params.recorded, visibleTo: RecordingMethods.visibility(of: call.caller), offset: offset, limit: limit + 1))
            let page = Array(meetings.prefix(limit))
            return Page(items: page, nextCursor: meetings.count > limit ? PageCursor.encode(Int64(offset + limit)) : nil)
        }
        table.register(StenoMethods.meetingsGet, access: .user) { call, params in
            try await store.meeting(id: params.id, visibleTo: RecordingMethods.visibility(of: call.caller))
        }
        table.register(StenoMethods.attendeesList, access: .user) { call, params in
            try await store.meeting(id: params.id, visibleTo: RecordingMethods.visibility(of: call.caller)).attendees
        }
        table.register(StenoMethods.searchQuery, access: .user) { call, params in
            let limit = params.limit ?? 50
            guard (1...1000).contains(limit) else { throw RPCError.invalidParams("limit must be between 1 and 1000") }
            guard !params.text.trimmingCharacters(in: .whitespaces).isEmpty else { throw RPCError.invalidParams("give some words to search for") }
            return try await store.search(params.text, visibleTo: RecordingMethods.visibility(of: call.caller), limit: limit)
        }
    }
}
