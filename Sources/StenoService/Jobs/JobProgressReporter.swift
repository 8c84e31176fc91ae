import Foundation
import Logging
import StenoCatalog
import StenoCore

/// Writes what a running attempt says it is doing to its jobs' `progress`, cheaply: a text
/// equal to the last one written is not written again, and texts arriving faster than
/// ``minimumInterval`` are coalesced (the latest one is written when the interval has passed),
/// so a handler may report as often as it likes.
actor JobProgressReporter {
    /// The shortest time between two writes.
    static let minimumInterval: Duration = .milliseconds(250)

    private let store: any JobQueueStore
    private let claims: [ClaimedJob]
    private let logger: Logger
    private let clock = ContinuousClock()
    private var written: String?
    private var lastWrite: ContinuousClock.Instant?
    private var pending: String?
    private var flushScheduled = false

    /// A reporter for the jobs of one run.
    init(store: any JobQueueStore, claims: [ClaimedJob], logger: Logger) {
        self.store = store
        self.claims = claims
        self.logger = logger
    }

    /// Records `text` as the jobs' progress, now or at the end of the current interval.
    func report(_ text: String) async {
        pending = text
        if let lastWrite, clock.now < lastWrite.advanced(by: Self.minimumInterval) {
            guard !flushScheduled else { return }
            flushScheduled = true
            let due = lastWrite.advanced(by: Self.minimumInterval)
            Task { [clock] in
                try? await clock.sleep(until: due)
                await self.flush()
            }
            return
        }
        await flush()
    }

    /// Writes the text still waiting for its interval, at the end of a run: a job's progress is
    /// recorded only while it runs, so the last report would otherwise be lost.
    func flushPending() async { await flush() }

    /// Writes the pending text if it differs from the one written.
    private func flush() async {
        flushScheduled = false
        guard let text = pending, text != written else { return }
        pending = nil
        written = text
        lastWrite = clock.now
        do {
            _ = try await store.setProgress(text, of: claims, now: Date())
        } catch {
            logger.debug("job progress not recorded", metadata: ["error": "\(error)"])
        }
    }
}
