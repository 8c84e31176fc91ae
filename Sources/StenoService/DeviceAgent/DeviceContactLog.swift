import Foundation
import Synchronization

/// Decides when a device's request is worth writing down as its last contact: at most once
/// a minute per device, or when its address changes. A phone syncing every few minutes then
/// costs no catalog write per request, and a re-push of unchanged events writes nothing.
final class DeviceContactLog: Sendable {
    let interval: Duration
    private let last = Mutex<[Int64: (address: String, at: ContinuousClock.Instant)]>([:])

    init(interval: Duration = .seconds(60)) {
        self.interval = interval
    }

    func shouldRecord(deviceID: Int64, address: String, now: ContinuousClock.Instant = .now) -> Bool {
        last.withLock { last in
            if let previous = last[deviceID], previous.address == address, now - previous.at < interval { return false }
            last[deviceID] = (address, now)
            return true
        }
    }
}
