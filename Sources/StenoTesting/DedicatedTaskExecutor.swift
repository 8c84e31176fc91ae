import Foundation

/// A thread of its own for the tasks a test starts (a watcher's loop, a server) or for a
/// whole test that blocks, so they progress while other tests hold the shared pool's few
/// threads in blocking calls (waiting for a process, a socket): with tests running in
/// parallel on two cores, a loop on the shared pool could wait minutes for a thread.
///
/// A plain thread, not an event loop: code that must not run on an event loop (a blocking
/// `HTTPClient.syncShutdown()`, an `EventLoopFuture.wait()`) may run on it.
///
/// Use it as a task's executor preference: `Task(executorPreference: executor) { … }` or
/// `withTaskExecutorPreference(executor) { … }`. The thread ends once the executor is released
/// and its queue is empty.
public final class DedicatedTaskExecutor: TaskExecutor, @unchecked Sendable {
    // Immutable after init; the queue guards itself.
    private let queue = WorkQueue()

    /// Starts the thread.
    public init() {
        let queue = queue
        let thread = Thread {
            Thread.current.threadDictionary[Self.markKey] = true
            queue.runUntilStopped()
        }
        thread.start()
    }

    /// Whether the calling code runs on the thread of a `DedicatedTaskExecutor`.
    public static var isCurrentThreadDedicated: Bool {
        Thread.current.threadDictionary[markKey] != nil
    }

    private static let markKey = "steno.dedicated-task-executor"

    deinit { queue.stop() }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        // The closure keeps the executor alive until the job has run on it.
        queue.push { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// Work items run in order by one thread, which waits while there are none.
private final class WorkQueue: @unchecked Sendable {
    // `items` and `isStopped` are guarded by `condition`.
    private let condition = NSCondition()
    private var items: [() -> Void] = []
    private var isStopped = false

    func push(_ item: @escaping () -> Void) {
        condition.lock()
        items.append(item)
        condition.signal()
        condition.unlock()
    }

    func stop() {
        condition.lock()
        isStopped = true
        condition.signal()
        condition.unlock()
    }

    func runUntilStopped() {
        while true {
            condition.lock()
            while items.isEmpty && !isStopped { condition.wait() }
            if items.isEmpty {
                condition.unlock()
                return
            }
            let item = items.removeFirst()
            condition.unlock()
            item()
        }
    }
}
