import NIOCore

/// Runs Swift tasks on a NIO event loop, so a request's async work starts and ends on the
/// thread that owns its connection: no hop to the global executor and back per request,
/// which is most of a small request's latency.
///
/// Work that awaits something slow (a database write) still suspends normally; only the
/// continuations run on the loop, so they must not block it.
final class EventLoopTaskExecutor: TaskExecutor, @unchecked Sendable {
    // Immutable after init; EventLoop is Sendable.
    let eventLoop: any EventLoop

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}
