import Foundation
import StenoAPI
import StenoCatalog
import StenoCore

/// `retention.preview` and the legal holds (`recordings.hold`, `recordings.unhold`,
/// `recordings.holds`).
struct RetentionMethods: Sendable {
    let store: any RecordingDeletionStore & RetentionStore & AccessLogStore
    let settings: RetentionSettings
    /// When the retention run fires (nil: no run is scheduled), and the zone it is read in.
    let schedule: CronSchedule?
    let timeZone: TimeZone

    func register(in table: inout RPCMethodTable) {
        let methods = self
        table.register(StenoMethods.retentionPreview, access: .user) { call, _ in
            try await methods.preview(for: call.caller, now: Date())
        }
        table.register(StenoMethods.recordingsHold, access: .admin) { call, params in
            try await methods.hold(params, call: call)
        }
        table.register(StenoMethods.recordingsUnhold, access: .admin) { call, params in
            try await methods.unhold(params.ids, call: call)
        }
        table.register(StenoMethods.recordingsHolds, access: .admin) { _, _ in
            RecordingHoldsResult(holds: try await methods.store.holds(ids: nil))
        }
    }

    /// What the next run removes, found as that run will find it, at the instant it starts:
    /// every recording for admins, their own for members.
    func preview(for caller: Caller, now: Date) async throws -> RetentionPreview {
        let runsAt = schedule?.nextFireDate(after: now, in: timeZone)
        var expired = try await RetentionRun(store: store, settings: settings).expired(now: runsAt ?? now)
        if !caller.isAdmin {
            let name = caller.user?.name.lowercased()
            expired.removeAll { $0.candidate.ownerName?.lowercased() != name || name == nil }
        }
        return RetentionPreview(
            runsAt: runsAt, rules: settings.policy.settings, archiveDirectory: settings.archiveDirectory,
            recordings: expired.map {
                RetentionPreviewItem(
                    id: $0.recordingID, title: $0.candidate.title, owner: $0.candidate.ownerName, agedFrom: $0.candidate.agedFrom,
                    rule: $0.rule.setting)
            },
            held: caller.isAdmin ? try await store.holds(ids: nil).count : 0)
    }

    /// Holds the recordings of `params` that exist; names those that do not.
    func hold(_ params: RecordingHoldParams, call: RPCCall) async throws -> RecordingHoldResult {
        let ids = try Self.ids(params.ids, verb: "hold")
        let reason = params.reason?.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (reason?.count ?? 0) <= 1_000 else { throw RPCError.invalidParams("a hold's reason is at most 1,000 characters") }
        let held = try await store.hold(ids, by: RecordingMethods.actor(call.caller), reason: reason?.isEmpty == true ? nil : reason, now: Date())
        try await store.logAccess(
            AccessDraft(action: .hold, recordingIDs: held, actor: RecordingMethods.actor(call.caller), uid: call.caller.credentials.uid, detail: reason))
        call.logger.notice(
            "recordings held", metadata: ["recordings": "\(held.count)", "by": "\(RecordingMethods.actor(call.caller))", "uid": "\(call.caller.credentials.uid)"])
        return RecordingHoldResult(held: held, unknown: Array(Set(ids).subtracting(held)).sorted())
    }

    /// Lifts the holds of `ids`.
    func unhold(_ ids: [Int64], call: RPCCall) async throws -> RecordingUnholdResult {
        let released = try await store.releaseHolds(try Self.ids(ids, verb: "unhold"))
        try await store.logAccess(AccessDraft(action: .unhold, recordingIDs: released, actor: RecordingMethods.actor(call.caller), uid: call.caller.credentials.uid))
        call.logger.notice(
            "recording holds lifted",
            metadata: ["recordings": "\(released.count)", "by": "\(RecordingMethods.actor(call.caller))", "uid": "\(call.caller.credentials.uid)"])
        return RecordingUnholdResult(released: released)
    }

    /// `ids`, distinct and ascending; at least one.
    private static func ids(_ ids: [Int64], verb: String) throws -> [Int64] {
        let distinct = Array(Set(ids)).sorted()
        guard !distinct.isEmpty else { throw RPCError.invalidParams("give at least one recording id to \(verb)") }
        guard distinct.count <= RecordingMethods.deletionLimit else {
            throw RPCError.invalidParams("at most \(RecordingMethods.deletionLimit) recordings at a time; \(distinct.count) given")
        }
        return distinct
    }
}
