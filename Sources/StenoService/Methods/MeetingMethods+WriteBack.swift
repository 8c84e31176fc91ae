import Foundation
import StenoAPI
import StenoCalendar
import StenoCatalog
import StenoCore

/// `meetings.create` and `meetings.rename`: write-back to the calendars Steno mirrors. A member writes only to calendars of their own accounts; admins to anyone's.
extension MeetingMethods {
    func registerWriteBack(in table: inout RPCMethodTable) {
        let methods = self
        table.register(StenoMethods.meetingsCreate, access: .user) { call, params in
            try await methods.create(params, caller: call.caller)
        }
        table.register(StenoMethods.meetingsRename, access: .user) { call, params in
            try await methods.rename(params, caller: call.caller)
        }
    }

    /// Creates an event covering a recording in its owner's calendar and links the recording to it.
    func create(_ params: MeetingCreateParams, caller: Caller) async throws -> MeetingWriteResult {
        guard let writeBack, let queue else { throw RPCError.failedPrecondition("this stenod cannot write to calendars") }
        let recording = try await LinkMethods.ownRecording(params.recording, caller: caller, store: store)
        guard recording.status == .ready, let start = recording.recordedAt else {
            throw RPCError.failedPrecondition(
                "recording \(recording.id) is \(recording.status.rawValue)\(recording.recordedAt == nil ? " and has no start time" : ""); "
                    + "a meeting can be created only for a ready recording")
        }
        if let link = try await store.link(recordingID: recording.id), link.state == .linked, let meeting = link.meetingID {
            throw RPCError.conflict(
                "recording \(recording.id) is already linked to meeting \(meeting) (\"\(link.cachedTitle ?? "")\"); "
                    + "unlink it first: steno unlink \(recording.id)")
        }
        guard let ownerID = recording.ownerID else {
            throw RPCError.failedPrecondition("recording \(recording.id) has no owner, so there is no calendar to create its meeting in")
        }
        let owner = try await store.user(matching: String(ownerID))
        let target = try Self.target(params.calendar, among: try await writeBack.writableCalendars(of: owner), owner: owner)
        let title = params.title.flatMap(Self.nonBlank) ?? recording.title.flatMap(Self.nonBlank) ?? Self.defaultTitle(recording)
        // One UID per recording content: a create retried after a lost answer is not made twice.
        let uid = "steno-" + (recording.contentHash.map { String($0.prefix(32)) } ?? "recording-\(recording.id)") + "@steno"
        let event = NewCalendarEvent(
            uid: uid, title: title, start: start, end: start.addingTimeInterval(max(recording.duration ?? 0, 60)),
            description: "Recorded by Steno: " + (recording.paths.first { $0.isPresent }?.path ?? "recording \(recording.id)"))
        var syncJob: Int64?
        var meeting: MeetingSummary?
        if let eventID = try await writeBack.create(event, in: target) {
            try await store.saveLink(
                LinkUpdate(
                    recordingID: recording.id, state: .linked, method: .manual, isManual: true, eventID: eventID,
                    actor: LinkMethods.actor(caller), action: "linked-to-created-meeting",
                    reason: "a meeting \"\(title)\" was created for it in \(target.calendar.name)"))
            if let meetingID = try await store.link(recordingID: recording.id)?.meetingID {
                meeting = try await store.meeting(id: meetingID, visibleTo: nil).meeting
            }
        } else {
            // The provider's answer did not carry the event: the sync mirrors it and links the recording.
            syncJob = try await queue.enqueue(CalendarSyncJobHandler.draft(accountID: target.account.id, priority: JobPriority.interactive)).job.id
        }
        return MeetingWriteResult(
            meeting: meeting, account: target.account.id, calendar: target.calendar.name, provider: target.account.provider,
            recording: recording.id, syncJob: syncJob)
    }

    /// Renames a meeting at the provider of a calendar holding it.
    func rename(_ params: MeetingRenameParams, caller: Caller) async throws -> MeetingWriteResult {
        guard let writeBack, let queue else { throw RPCError.failedPrecondition("this stenod cannot write to calendars") }
        guard let title = Self.nonBlank(params.title) else { throw RPCError.invalidParams("give the meeting a title that is not blank") }
        // Members rename only meetings they can see; the store's visibility says which.
        _ = try await store.meeting(id: params.id, visibleTo: RecordingMethods.visibility(of: caller))
        let sources = try await store.eventSources(meetingID: params.id).filter { writeBack.writers[$0.provider] != nil }
        func isOwn(_ source: EventSource) -> Bool { source.ownerID == caller.user?.id }
        // The organizer's copy first (renaming it renames the meeting for everyone invited),
        // then the caller's own; members only ever their own.
        let candidates = sources.filter { caller.isAdmin || isOwn($0) }
            .sorted { ($0.ownerOrganizes ? 0 : 1, isOwn($0) ? 0 : 1, $0.eventID) < ($1.ownerOrganizes ? 0 : 1, isOwn($1) ? 0 : 1, $1.eventID) }
        guard let source = candidates.first else {
            throw RPCError.failedPrecondition(
                sources.isEmpty
                    ? "meeting \(params.id) is in no calendar Steno can write to (Microsoft 365, CalDAV or a paired phone)"
                    : "meeting \(params.id) is in no calendar of yours that Steno can write to; its owner or an admin may rename it")
        }
        let mirrored = try await writeBack.rename(source, title: title)
        var syncJob: Int64?
        if !mirrored {
            syncJob = try await queue.enqueue(CalendarSyncJobHandler.draft(accountID: source.accountID, priority: JobPriority.interactive)).job.id
        }
        let meeting = try? await store.meeting(id: params.id, visibleTo: nil).meeting
        return MeetingWriteResult(
            meeting: meeting, account: source.accountID, calendar: source.calendarName, provider: source.provider, syncJob: syncJob)
    }

    /// The calendar to create in: the one named, else the only one there is.
    static func target(
        _ calendarID: Int64?, among calendars: [CalendarWriteBack.WritableCalendar], owner: User
    ) throws -> CalendarWriteBack.WritableCalendar {
        let listing = calendars.map { "\($0.calendar.id) \($0.calendar.name) (\($0.account.provider.rawValue))" }.joined(separator: ", ")
        if let calendarID {
            guard let named = calendars.first(where: { $0.calendar.id == calendarID }) else {
                throw RPCError.invalidParams(
                    "calendar \(calendarID) is not a calendar of \(owner.name) that Steno can write to"
                        + (calendars.isEmpty ? "" : "; these are: \(listing)"))
            }
            return named
        }
        switch calendars.count {
        case 0:
            throw RPCError.failedPrecondition(
                "\(owner.name) has no Microsoft 365, CalDAV or phone calendar Steno can write to; add one, e.g. "
                    + "steno accounts add graph --client-id APP-ID --write")
        case 1:
            return calendars[0]
        default:
            throw RPCError.invalidParams("\(owner.name) has \(calendars.count) calendars Steno can write to; pick one with --calendar: \(listing)")
        }
    }

    /// A title from the recording's file name: `standup-2026-11-20.m4a` → "Recording standup-2026-11-20".
    static func defaultTitle(_ recording: Recording) -> String {
        let name = recording.paths.first.map { URL(fileURLWithPath: $0.path).deletingPathExtension().lastPathComponent } ?? ""
        return name.isEmpty ? "Recording \(recording.id)" : "Recording \(name)"
    }

    static func nonBlank(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }
}
