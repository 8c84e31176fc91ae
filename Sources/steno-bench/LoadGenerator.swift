#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// Drives N client threads, each doing blocking round trips for a fixed time, and reports
/// throughput and latency percentiles.
enum LoadGenerator {
    struct Result {
        var clients: Int
        var roundTrips: Int
        var seconds: Double
        var p50Microseconds: Double
        var p99Microseconds: Double
        var failures: Int
        var throughput: Double { Double(roundTrips) / seconds }
    }

    static func run(path: String, frame: [UInt8], clients: Int, seconds: Double) -> Result {
        let latencies = Mutex<[UInt64]>([])
        let failures = Atomic<Int>(0)
        let group = DispatchGroup()
        let startGate = DispatchSemaphore(value: 0)
        for _ in 0..<clients {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                guard let socket = BlockingLineSocket(path: path) else {
                    failures.add(1, ordering: .relaxed)
                    return
                }
                // Warm the connection up outside the measurement.
                _ = socket.roundTrip(frame)
                startGate.wait()
                var local: [UInt64] = []
                local.reserveCapacity(200_000)
                let end = now() + UInt64(seconds * 1e9)
                while true {
                    let before = now()
                    guard before < end else { break }
                    guard socket.roundTrip(frame) != nil else {
                        failures.add(1, ordering: .relaxed)
                        break
                    }
                    local.append(now() - before)
                }
                latencies.withLock { $0 += local }
            }
        }
        usleep(200_000)
        let started = now()
        for _ in 0..<clients { startGate.signal() }
        group.wait()
        let elapsed = Double(now() - started) / 1e9
        let sorted = latencies.withLock { $0.sorted() }
        func percentile(_ p: Double) -> Double {
            guard !sorted.isEmpty else { return .nan }
            return Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]) / 1000
        }
        return Result(
            clients: clients, roundTrips: sorted.count, seconds: elapsed,
            p50Microseconds: percentile(0.50), p99Microseconds: percentile(0.99),
            failures: failures.load(ordering: .relaxed))
    }

    static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }
}
