import Foundation
import Synchronization

/// The clock of a watcher without inotify (polling mode): a tick every interval from a
/// thread of its own, like the inotify reader's, so the watcher's loop is driven whatever
/// the shared task pool is busy with. The stream ends after `stop()`.
final class WatcherTicks: Sendable {
    private let stopped = Atomic<Bool>(false)

    func inputs(every interval: Duration) -> AsyncStream<WatcherInput> {
        let (stream, continuation) = AsyncStream.makeStream(of: WatcherInput.self, bufferingPolicy: .bufferingNewest(1))
        let microseconds = UInt32(clamping: interval.components.seconds * 1_000_000 + interval.components.attoseconds / 1_000_000_000_000)
        Thread.detachNewThread { [self] in
            while !stopped.load(ordering: .acquiring) {
                usleep(microseconds)
                continuation.yield(.tick)
            }
            continuation.finish()
        }
        return stream
    }

    func stop() {
        stopped.store(true, ordering: .releasing)
    }
}
