#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// CPU time of processes from `/proc`, to split a run's cost between the daemons and the
/// database server.
enum ProcessCPU {
    /// Seconds of CPU `pid` used (user and system); nil when the process is gone.
    static func seconds(pid: Int32) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return nil }
        // After the command's closing parenthesis: state (field 3), …, utime (14), stime (15).
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 12 else { return nil }
        let ticks = fields[11...12].compactMap { Double($0) }.reduce(0, +)
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Seconds of CPU used so far by the PostgreSQL server processes serving `database` (one
    /// per connection of the pools on it).
    static func databaseSeconds(_ database: String) -> Double {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> Double? in
            guard let pid = Int32(entry), let command = try? String(contentsOfFile: "/proc/\(entry)/cmdline", encoding: .utf8),
                command.hasPrefix("postgres:"), command.contains(" \(database) ")
            else { return nil }
            return seconds(pid: pid)
        }.reduce(0, +)
    }
}
