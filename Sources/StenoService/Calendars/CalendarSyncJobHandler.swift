import Foundation
import StenoAPI
import StenoCalendar
import StenoCore

/// The `calendar.sync` job: syncs one account (payload `{"account": ID}`).
///
/// Credentials refused → the job is dead at once (the account shows "needs credentials" and
/// waits for a person); a busy server → retried after its Retry-After; anything else →
/// retried with backoff.
struct CalendarSyncJobHandler: JobHandler {
    static let kind = "calendar.sync"

    let syncer: CalendarSyncer
    /// Where the follow-up linking job goes.
    let queue: JobQueue

    var kind: String { Self.kind }

    /// The job for an account; one live sync per account.
    static func draft(accountID: Int64, priority: Int = JobPriority.normal) -> JobDraft {
        JobDraft(
            kind: kind, payload: JSONValue.object(["account": .int(accountID)]).serializedString, priority: priority,
            uniqueKey: "calendar.sync:\(accountID)")
    }

    func run(_ job: Job, context: JobContext) async throws -> JobOutcome {
        guard let accountID = (try? JSONValue.parse(job.payload))?["account"]?.intValue else {
            throw JobError.permanent("the calendar.sync payload has no \"account\": \(job.payload)")
        }
        let started = Date()
        let outcome: CalendarSyncer.Outcome
        do {
            outcome = try await syncer.sync(accountID: accountID)
        } catch let error as CalendarSyncError {
            switch error {
            case .needsCredentials(let message):
                throw JobError.permanent(message)
            case .retryLater(let after, let reason):
                return .retry(after: after, reason: reason)
            case .badSource, .malformedResponse:
                throw error
            }
        }
        let report = outcome.report
        if !outcome.touchedMeetingIDs.isEmpty {
            // Events changed: link recordings that now have a meeting, revalidate links to changed meetings.
            _ = try await queue.enqueue(LinksAfterSyncJobHandler.draft(since: started.addingTimeInterval(-1)))
        }
        let result: JSONValue = [
            "account": .int(accountID), "calendars": .int(Int64(report.calendars)), "fullSyncs": .int(Int64(report.fullSyncs)),
            "inserted": .int(Int64(report.changes.inserted)), "updated": .int(Int64(report.changes.updated)),
            "deleted": .int(Int64(report.changes.deleted)), "unchanged": .int(Int64(report.changes.unchanged)),
            "requests": .int(Int64(report.requests)), "meetingsTouched": .int(Int64(outcome.touchedMeetingIDs.count)),
            "warnings": .array(report.warnings.map { .string($0) }),
        ]
        return .succeeded(result: result.serializedString)
    }
}
