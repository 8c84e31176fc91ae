import StenoTesting
import Testing

/// Marks a suite whose tests block the thread they run on — they start `stenod`, `steno`,
/// Radicale or PostgreSQL processes and wait for them, read sockets, poll with `usleep` — and
/// runs each of its tests on a thread of its own, a few at a time.
///
/// Swift's shared pool has one thread per core (two here). A blocking test on it holds one of
/// them until it ends, so when the suite runs in parallel, two such tests stall every async
/// test and every library task that needs the pool (a PostgreSQL client's connection loop, a
/// watcher's loop) for minutes, and those fail on their own timeouts. On a thread of its own a
/// blocking test holds only that thread; the bound keeps the daemons the tests start from
/// outnumbering the cores many times over.
///
/// Apply it to the suite: `@Suite("…", .serialized, .blocksThreads)`; it covers every test
/// and test case inside, nested suites included.
public struct BlocksThreadsTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    /// One scope per test case (each run of a test function), none around the suite itself:
    /// a slot is held only while a test runs.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await BlockingTestSlots.shared.withSlot {
            // A child task starts on the executor it prefers; a preference set on the running
            // task would apply only from its next suspension, and a synchronous test has none.
            // The group ends before this scope does, so `function` does not outlive it.
            try await withoutActuallyEscaping(function) { function in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask(executorPreference: DedicatedTaskExecutor()) { try await function() }
                    try await group.waitForAll()
                }
            }
        }
    }
}

extension Trait where Self == BlocksThreadsTrait {
    /// The suite's tests block threads: each runs on a thread of its own, a few at a time
    /// (see `BlocksThreadsTrait`).
    public static var blocksThreads: Self { BlocksThreadsTrait() }
}
