import Foundation
import StenoCore

/// Which zone steno prints and reads times in: `--tz`, else `TZ` (as the C library reads it:
/// `Europe/Paris`, `:Europe/Paris`, `UTC`), else the system's.
enum TimeZoneArgument {
    /// The zone; nil when `--tz` names none (a `TZ` naming none falls back to the system's,
    /// as the C library does).
    static func zone(flag: String?, environment: [String: String]) -> TimeZone? {
        if let flag { return TimeZoneName.zone(flag) }
        if let variable = environment["TZ"], !variable.isEmpty {
            let name = variable.hasPrefix(":") ? String(variable.dropFirst()) : variable
            if let zone = TimeZoneName.zone(name) { return zone }
        }
        return .current
    }
}

extension Output {
    /// The zone printed times are written in: set once from `--tz` while the options are read.
    static var timeZone: TimeZone {
        get { zoneSetting.withLock { $0 } }
        set { zoneSetting.withLock { $0 = newValue } }
    }

    private static let zoneSetting = LockedZone(.current)
}

/// The process's print zone behind a lock (Swift 6: shared mutable state must be).
private final class LockedZone: @unchecked Sendable {
    private let lock = NSLock()
    private var zone: TimeZone

    init(_ zone: TimeZone) { self.zone = zone }

    func withLock<T>(_ body: (inout TimeZone) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&zone)
    }
}
