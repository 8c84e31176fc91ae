import NIOCore
import NIOPosix

/// A thread of its own for the tasks a test starts (a watcher's loop, a server), so they
/// progress while other tests hold the shared pool's few threads in blocking calls
/// (waiting for a process, a socket): with tests running in parallel on two cores, a loop
/// on the shared pool could wait minutes for a thread.
///
/// Use it as a task's executor preference: `Task(executorPreference: executor) { … }`.
public final class DedicatedTaskExecutor: TaskExecutor, @unchecked Sendable {
    // Immutable after init; the group and its loop are Sendable.
    private let group: MultiThreadedEventLoopGroup
    private let eventLoop: any EventLoop

    public init() {
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        eventLoop = group.next()
    }

    deinit { group.shutdownGracefully { _ in } }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
