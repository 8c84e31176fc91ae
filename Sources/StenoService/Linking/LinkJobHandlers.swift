import Foundation
import StenoAPI
import StenoCore
import StenoStore

/// `link`: links recordings after they were ingested (payload `{"recording": ID}`, or
/// `{"recordings": [ID, …]}` for a batch of files ingested together).
struct LinkRecordingJobHandler: JobHandler {
    static let kind = "link"
    let linker: RecordingLinker
    var kind: String { Self.kind }

    /// The job for one recording (one live job per recording), or for many (one job).
    static func draft(recordingIDs: [Int64], priority: Int = JobPriority.normal) -> JobDraft {
        if recordingIDs.count == 1, let id = recordingIDs.first {
            return JobDraft(
                kind: kind, payload: JSONValue.object(["recording": .int(id)]).serializedString, priority: priority, uniqueKey: "link:\(id)")
        }
        return JobDraft(kind: kind, payload: JSONValue.object(["recordings": .array(recordingIDs.map { .int($0) })]).serializedString, priority: priority)
    }

    /// The recordings a payload names; nil when it names none.
    static func recordingIDs(of payload: String) -> [Int64]? {
        let value = try? JSONValue.parse(payload)
        if let id = value?["recording"]?.intValue { return [id] }
        guard case .array(let items)? = value?["recordings"] else { return nil }
        let ids = items.compactMap(\.intValue)
        return ids.count == items.count && !ids.isEmpty ? ids : nil
    }

    func run(_ job: Job, context: JobContext) async throws -> JobOutcome {
        guard let ids = Self.recordingIDs(of: job.payload) else {
            throw JobError.permanent("the link payload names no \"recording\" or \"recordings\": \(job.payload)")
        }
        guard ids.count == 1, let id = ids.first else {
            let changed = try await linker.link(recordingIDs: ids)
            let result: JSONValue = ["recordings": .int(Int64(ids.count)), "changed": .int(Int64(changed.values.reduce(0, +)))]
            return .succeeded(result: result.serializedString)
        }
        let decision = try await linker.link(recordingID: id)
        let result: JSONValue = [
            "recording": .int(id), "changed": .bool(decision != nil),
            "state": decision.map { .string($0.state.rawValue) } ?? .null,
            "meeting": decision?.chosen.map { .int($0.candidate.meetingID) } ?? .null,
        ]
        return .succeeded(result: result.serializedString)
    }
}

/// `links.after-sync`: after a sync changed events, links recordings that now have a meeting
/// and revalidates links to the changed meetings (payload `{"since": ms}`).
struct LinksAfterSyncJobHandler: JobHandler {
    static let kind = "links.after-sync"
    let linker: RecordingLinker
    let store: any CatalogStore
    var kind: String { Self.kind }

    static func draft(since: Date) -> JobDraft {
        JobDraft(kind: kind, payload: JSONValue.object(["since": .int(Int64(since.timeIntervalSince1970 * 1000))]).serializedString)
    }

    func run(_ job: Job, context: JobContext) async throws -> JobOutcome {
        guard let milliseconds = (try? JSONValue.parse(job.payload))?["since"]?.intValue else {
            throw JobError.permanent("the links.after-sync payload has no \"since\": \(job.payload)")
        }
        let since = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        var counts: [String: Int64] = [:]
        let touched = try await store.linksTouchedByEvents(changedSince: since)
        for (action, count) in try await linker.revalidate(recordingIDs: touched) { counts[action.rawValue, default: 0] += Int64(count) }
        if let span = try await store.changedEventSpan(since: since) {
            let window = DateInterval(
                start: span.start.addingTimeInterval(-linker.policy.tolerance - 86_400), end: span.end.addingTimeInterval(linker.policy.tolerance))
            let unsettled = try await store.unsettledRecordings(recordedWithin: window)
            for (state, count) in try await linker.link(recordingIDs: unsettled) { counts[state.rawValue, default: 0] += Int64(count) }
        }
        return .succeeded(result: JSONValue.object(counts.mapValues { .int($0) }).serializedString)
    }
}

/// `links.revalidate`: the nightly re-check of every link, and `steno revalidate`.
struct RevalidateLinksJobHandler: JobHandler {
    static let kind = "links.revalidate"
    let linker: RecordingLinker
    let store: any CatalogStore
    var kind: String { Self.kind }

    static func draft(priority: Int = JobPriority.normal) -> JobDraft {
        JobDraft(kind: kind, priority: priority, uniqueKey: kind)
    }

    func run(_ job: Job, context: JobContext) async throws -> JobOutcome {
        var counts: [String: Int64] = Dictionary(uniqueKeysWithValues: RevalidationAction.allCases.map { ($0.rawValue, 0) })
        for (action, count) in try await linker.revalidate(recordingIDs: try await store.linkedRecordings()) {
            counts[action.rawValue, default: 0] += Int64(count)
        }
        // Recordings still without a meeting get another chance (their meeting may have appeared).
        let unsettled = try await store.unsettledRecordings(recordedWithin: nil)
        counts["newly-linked"] = Int64(try await linker.link(recordingIDs: unsettled, actor: "revalidation")[.linked] ?? 0)
        return .succeeded(result: JSONValue.object(counts.mapValues { .int($0) }).serializedString)
    }
}
