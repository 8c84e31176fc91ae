import Foundation
import StenoCalendar
import StenoCore

/// The `calendar.sync` job: syncs one account.
enum CalendarSyncJob: JobKind {
    static let name = "calendar.sync"

    /// `{"account": ID}`.
    struct Payload: Codable, Sendable, Hashable {
        /// The account to sync.
        var account: Int64
    }

    /// What the sync did, counted.
    struct Result: Codable, Sendable, Hashable {
        var account: Int64
        var calendars: Int
        var fullSyncs: Int
        var inserted: Int
        var updated: Int
        var deleted: Int
        var unchanged: Int
        var requests: Int
        var meetingsTouched: Int
        var warnings: [String]
    }
}

/// Runs `calendar.sync` jobs.
///
/// Credentials refused → the job is dead at once (the account shows "needs credentials" and
/// waits for a person); a busy server → retried after its Retry-After; anything else →
/// retried with backoff.
struct CalendarSyncJobHandler: JobHandler {
    let syncer: CalendarSyncer
    /// Where the follow-up linking job goes.
    let queue: JobQueue

    /// The job for an account; one live sync per account.
    static func draft(accountID: Int64, priority: Int = JobPriority.normal) throws -> JobDraft {
        try CalendarSyncJob.draft(.init(account: accountID), priority: priority, uniqueKey: "calendar.sync:\(accountID)")
    }

    func run(_ attempts: [JobAttempt<CalendarSyncJob>], context: JobContext) async throws -> [JobOutcome<CalendarSyncJob.Result>] {
        await attempts.eachAttempt { try await sync($0.payload.account) }
    }

    func sync(_ accountID: Int64) async throws -> JobOutcome<CalendarSyncJob.Result> {
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
        return .succeeded(
            CalendarSyncJob.Result(
                account: accountID, calendars: report.calendars, fullSyncs: report.fullSyncs, inserted: report.changes.inserted,
                updated: report.changes.updated, deleted: report.changes.deleted, unchanged: report.changes.unchanged,
                requests: report.requests, meetingsTouched: outcome.touchedMeetingIDs.count, warnings: report.warnings))
    }
}
